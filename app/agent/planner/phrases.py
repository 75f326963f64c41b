"""Every sentence the offline planner says, in English and Russian, in one place.

What each tool can do and an example request for it are not here: they are declared with
the tool (``can``, ``example``; see :mod:`app.agent.planner.known`)."""

from __future__ import annotations

from app.agent.planner.text import Lang
from app.i18n import said

_TEXT: dict[str, tuple[str, str]] = {
    "capabilities_head": (
        "I did not recognise a request I can act on. Here is what I can do:",
        "Я не распознал запрос, который могу выполнить. Вот что я умею:",
    ),
    "capabilities_none": (
        "No tools are available to you in this context.",
        "В этом контексте вам не доступен ни один инструмент.",
    ),
    "examples": ("For example:", "Например:"),
    "missing": (
        "To {action} I need {what}. Please add it to your request.",
        "Чтобы {action}, мне нужно: {what}. Пожалуйста, уточните запрос.",
    ),
    # steps
    "looking_dashboard": ("Looking for dashboard {name}{env}…", "Ищу дашборд {name}{env}…"),
    "looking_backup": (
        "Looking up backup {name} in the backup list{env}…",
        "Ищу бэкап {name} в списке бэкапов{env}…",
    ),
    "found_dashboard": ("Found {label}{env}.", "Нашёл {label}{env}."),
    "found_backup": ("Found backup {label}.", "Нашёл бэкап {label}."),
    "which_dashboard": (
        "{count} dashboards match {name}{env}. Which one do you mean?",
        "Под {name}{env} подходят несколько дашбордов ({count}). Какой вы имеете в виду?",
    ),
    "which_backup": (
        "{count} backups start with {name}. Which one do you mean?",
        "С {name} начинаются несколько бэкапов ({count}). Какой вы имеете в виду?",
    ),
    "shown_of": ("The first {shown} are listed.", "Показаны первые {shown}."),
    "no_dashboard": (
        "No dashboard matches {name}{env}. Check the name, or search with a part of it.",
        "Дашборда {name}{env} не нашлось. Проверьте название или поищите по его части.",
    ),
    "no_backup": (
        "No backup id starts with {name}{env}. List the backups to see their ids.",
        "Бэкапа с id на {name}{env} нет. Список бэкапов покажет их id.",
    ),
    "nth_backup": (
        "No backup id starts with {name}{env}. Did you mean the backup number {n} of the list?",
        "Бэкапа с id на {name}{env} нет. Может быть, вы имели в виду {n}-й бэкап из списка?",
    ),
    "done": ("Done: {action}.", "Готово: {action}."),
    "no_results": (
        "There are no tool results to report.",
        "Нет результатов инструментов, о которых можно сообщить.",
    ),
}

ARG_NAMES: dict[str, tuple[str, str]] = {
    "dashboard_id": (
        "a dashboard id (or open the dashboard)",
        "id дашборда (или откройте дашборд)",
    ),
    "dashboard_ids": ("the dashboard ids", "id дашбордов"),
    "target_env": ("the target environment", "целевое окружение"),
    "sql": ("the SQL statement", "SQL-запрос"),
    "database": ("the database", "база данных"),
    "table_name": ("the table or dataset name", "имя таблицы или датасета"),
    "branch": ("the branch name", "имя ветки"),
    "message": ("the commit message in quotes", "сообщение коммита в кавычках"),
    "backup_id": (
        "the backup id (list backups shows them)",
        "id бэкапа (его покажет список бэкапов)",
    ),
}


def say(key: str, lang: Lang, **values: object) -> str:
    return said(_TEXT[key], lang, **values)


def pick(pair: tuple[str, str], lang: Lang) -> str:
    return said(pair, lang)


def tr(lang: Lang, en: str, ru: str) -> str:
    """The sentence in the language: ``tr(lang, "Deleted.", "Удалено.")``."""
    return said((en, ru), lang)
