"""Every sentence the offline planner says, in English and Russian, in one place."""

from __future__ import annotations

from app.agent.planner.text import Lang

# tool -> (English, Russian) short description of what the person can ask for
CAPABILITIES: dict[str, tuple[str, str]] = {
    "show_capabilities": ("explain what I can do", "рассказать, что я умею"),
    "list_environments": ("list the Superset environments", "показать окружения Superset"),
    "get_task_status": ("show the status of a task", "показать статус задачи"),
    "search_dashboards": ("find dashboards", "найти дашборды"),
    "get_health_summary": ("check a dashboard's health", "проверить здоровье дашборда"),
    "run_llm_validation": ("validate a dashboard", "провалидировать дашборд"),
    "run_llm_documentation": ("document a dashboard", "задокументировать дашборд"),
    "superset_explore_database": (
        "show databases, schemas and tables",
        "показать базы данных, схемы и таблицы",
    ),
    "superset_format_sql": ("format SQL", "отформатировать SQL"),
    "superset_execute_sql": ("run SQL", "выполнить SQL-запрос"),
    "superset_create_dataset": ("create a dataset", "создать датасет"),
    "superset_audit_permissions": ("audit permissions", "проверить права доступа"),
    "list_backups": ("list backups", "показать бэкапы"),
    "deploy_dashboard": ("deploy a dashboard to another environment", "задеплоить дашборд"),
    "execute_migration": ("migrate dashboards between environments", "мигрировать дашборды"),
    "create_branch": ("create a git branch", "создать git-ветку"),
    "commit_changes": ("commit changes to git", "закоммитить изменения"),
    "run_backup": ("back up an environment", "сделать бэкап окружения"),
    "restore_backup": ("restore a backup", "восстановить бэкап"),
    "start_maintenance": ("start a maintenance window", "включить режим обслуживания"),
    "end_maintenance": ("end a maintenance window", "завершить режим обслуживания"),
    "delete_dashboard": ("delete a dashboard", "удалить дашборд"),
}

EXAMPLES: dict[str, tuple[str, str]] = {
    "search_dashboards": ("find dashboards about sales", "найди дашборды продаж"),
    "get_health_summary": ("check health of dashboard 12", "проверь здоровье дашборда 12"),
    "superset_execute_sql": ("run select count(*) from sales", "выполни запрос select 1"),
    "deploy_dashboard": ("deploy this dashboard to prod", "задеплой этот дашборд на прод"),
    "list_environments": ("list environments", "покажи окружения"),
}

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
    "calling": ("Next step: {action} (`{tool}`).", "Следующий шаг: {action} (`{tool}`)."),
    "missing": (
        "To {action} I need {what}. Please add it to your request.",
        "Чтобы {action}, мне нужно: {what}. Пожалуйста, уточните запрос.",
    ),
    "cancelled": ("Operation cancelled.", "Операция отменена."),
    "cancel_reason": ("Reason: {reason}", "Причина: {reason}"),
    "error": ("`{tool}` failed: {message}", "`{tool}` завершился ошибкой: {message}"),
    "denied": (
        "You are not allowed to run `{tool}`: {reason}",
        "У вас нет прав на `{tool}`: {reason}",
    ),
    "denied_next": (
        "Ask an administrator if you need this action.",
        "Если это действие нужно, обратитесь к администратору.",
    ),
    "not_available": (
        "`{tool}` is not available here: {reason}",
        "`{tool}` здесь недоступен: {reason}",
    ),
    "not_available_next": (
        "Open the agent without a page context, or from a page this tool applies to.",
        "Откройте агента без контекста страницы или со страницы, к которой относится "
        "этот инструмент.",
    ),
    "result_of": ("**{title}**", "**{title}**"),
    "found_items": ("Found {count}:", "Найдено: {count}"),
    "more": ("+ {count} more.", "+ ещё {count}."),
    "empty": ("Nothing found.", "Ничего не найдено."),
    "done": ("Done.", "Готово."),
    "no_results": (
        "There are no tool results to report.",
        "Нет результатов инструментов, о которых можно сообщить.",
    ),
}

# error keyword -> suggested next step
NEXT_STEPS: tuple[tuple[str, tuple[str, str]], ...] = (
    (
        r"invalid.arguments|required|missing",
        (
            "Some details were missing or invalid: repeat the request with the ids, names "
            "and environment spelled out.",
            "Не хватило или неверны детали: повторите запрос, указав id, имена и окружение.",
        ),
    ),
    (
        r"timeout|timed out|time-out",
        (
            "Superset did not answer in time: try again in a minute; for a write, check in "
            "Superset whether it happened before retrying.",
            "Superset не ответил вовремя: повторите через минуту; для изменяющих операций "
            "сначала проверьте в Superset, не выполнилась ли она.",
        ),
    ),
    (
        r"maintenance",
        (
            "The environment is in a maintenance window: wait for it to end or end it first.",
            "Окружение в режиме обслуживания: дождитесь его окончания или завершите его.",
        ),
    ),
    (
        r"not found|404|unknown",
        (
            "Check the id or name, for example by searching dashboards first.",
            "Проверьте идентификатор или имя — например, сначала найдите дашборды поиском.",
        ),
    ),
    (
        r"unavailable|unreachable|connect|5\d\d|refused",
        (
            "Superset seems unreachable: check the environment and try again later.",
            "Superset, похоже, недоступен: проверьте окружение и повторите позже.",
        ),
    ),
    (
        r"auth|login|401|403|credential",
        (
            "Superset refused the login: check the environment's credentials.",
            "Superset отклонил вход: проверьте учётные данные окружения.",
        ),
    ),
    (
        r"environment|env",
        (
            "Choose an environment (list environments shows them) and try again.",
            "Выберите окружение (их покажет список окружений) и повторите.",
        ),
    ),
)

DEFAULT_NEXT_STEP = (
    "Check the request and try again, or ask me for something else.",
    "Проверьте запрос и повторите, или попросите меня о другом.",
)

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
    en, ru = _TEXT[key]
    return (ru if lang == "ru" else en).format(**values)


def pick(pair: tuple[str, str], lang: Lang) -> str:
    return pair[1] if lang == "ru" else pair[0]
