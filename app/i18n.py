"""Every visible string of the pages (login, audit, agent), in English and Russian.

``t(key, lang, **fmt)`` looks a string up (``said`` says any (English, Russian) pair);
``pick_language`` chooses a page's language from ``?lang=``, else the user's stored
choice, else the browser's Accept-Language; ``detect_lang`` tells the language of a
piece of text (a message); ``refusal_text`` says why a request was refused, in the
page's language.
"""

from __future__ import annotations

import re

from app.i18n_controls import CONTROL_STRINGS
from app.i18n_results import RESULT_STRINGS
from app.vocab import LANGS, Lang

LANGUAGES: tuple[Lang, ...] = LANGS
DEFAULT_LANGUAGE: Lang = "en"
_CYRILLIC = re.compile("[\u0400-\u04ff]")

STRINGS: dict[str, tuple[str, str]] = {
    # key: (English, Russian)
    "product_name": ("ss-tools agent", "ss-tools агент"),
    "no_context": ("No context selected", "Контекст не выбран"),
    "object_dashboard": ("Dashboard", "Дашборд"),
    "object_dataset": ("Dataset", "Датасет"),
    "object_migration": ("Migration", "Миграция"),
    "environment": ("Environment", "Окружение"),
    "no_environments": ("No environments configured", "Окружения не настроены"),
    "language": ("Language", "Язык"),
    "sign_out": ("Sign out", "Выйти"),
    "role_admin": ("admin", "администратор"),
    "role_analyst": ("analyst", "аналитик"),
    "production": ("PRODUCTION", "PRODUCTION"),
    "production_hint": (
        "Actions here change the production environment",
        "Действия здесь меняют продуктивное окружение",
    ),
    "chat_placeholder": ("Ask the agent…", "Спросите агента…"),
    "send": ("Send", "Отправить"),
    "new_conversation": ("New conversation", "Новый диалог"),
    "you": ("You", "Вы"),
    "agent": ("Agent", "Агент"),
    "empty_chat": (
        "Ask about dashboards, datasets, deployments or backups.",
        "Спросите о дашбордах, датасетах, развёртываниях или резервных копиях.",
    ),
    # process steps
    "step_context": ("Context", "Контекст"),
    "step_thinking": ("Thinking", "Анализ"),
    "step_tools": ("Running tools", "Выполнение инструментов"),
    "step_confirm": ("Waiting for confirmation", "Ожидание подтверждения"),
    "step_answer": ("Answer", "Ответ"),
    # connection states
    "state_idle": ("Ready", "Готов"),
    "state_streaming": ("The agent is working…", "Агент работает…"),
    "state_awaiting_confirmation": (
        "Waiting for your confirmation",
        "Ожидает вашего подтверждения",
    ),
    "state_error": ("Something went wrong", "Что-то пошло не так"),
    "state_disconnected": ("Connection lost — reconnecting…", "Связь потеряна — переподключение…"),
    "state_disconnected_permanent": (
        "Connection lost. Reload the page to continue.",
        "Связь потеряна. Перезагрузите страницу, чтобы продолжить.",
    ),
    "reload": ("Reload", "Перезагрузить"),
    "answered_by": ("Answered by {model}", "Ответил: {model}"),
    "offline_planner": (
        "offline planner (deterministic, no LLM)",
        "офлайн-планировщик (детерминированный, без LLM)",
    ),
    # confirmation card
    "confirm": ("Confirm", "Подтвердить"),
    "cancel": ("Cancel", "Отмена"),
    "confirm_title_read": ("Confirm a read action", "Подтвердите чтение"),
    "confirm_title_write_dev": ("Confirm a change in dev", "Подтвердите изменение в dev"),
    "confirm_title_write_staging": (
        "Confirm a change in staging",
        "Подтвердите изменение в staging",
    ),
    "confirm_title_write_prod": (
        "Confirm a change in PRODUCTION",
        "Подтвердите изменение в PRODUCTION",
    ),
    "confirm_title_dangerous": ("Dangerous action", "Опасное действие"),
    "confirm_title_loading_confirm": ("Running…", "Выполняется…"),
    "confirm_title_loading_deny": ("Cancelling…", "Отмена…"),
    "tool": ("Tool", "Инструмент"),
    "arguments": ("Arguments", "Аргументы"),
    "details": ("Details", "Подробности"),
    "countdown": (
        "Confirm available in {n} s",
        "Подтверждение станет доступно через {n} с",
    ),
    "countdown_done": ("You can confirm now", "Теперь можно подтвердить"),
    "operation_cancelled": ("Operation cancelled", "Операция отменена"),
    "env_unknown": ("no env", "без окружения"),
    # permission denied card
    "permission_denied": ("Permission denied", "Доступ запрещён"),
    "requires_role": ("'{tool}' requires the {role} role.", "Для «{tool}» нужна роль {role}."),
    "alternatives": ("You can try instead:", "Вместо этого можно:"),
    "close": ("Close", "Закрыть"),
    # tool cards
    "tool_executing": ("Running", "Выполняется"),
    "tool_retrying": ("Retrying (attempt {attempt})", "Повтор (попытка {attempt})"),
    "tool_completed": ("Done", "Готово"),
    "tool_failed": ("Failed", "Ошибка"),
    "tool_timeout": ("Timed out", "Превышено время ожидания"),
    "tool_cancelled": ("Cancelled", "Отменено"),
    "retry": ("Retry", "Повторить"),
    "check_status": ("Check status", "Проверить статус"),
    "status_unknown": (
        "Operation status unknown — check Superset",
        "Статус операции неизвестен — проверьте Superset",
    ),
    "check_status_prompt": (
        "Check the status of the last {tool} operation (get_task_status)",
        "Проверь статус последней операции {tool} (get_task_status)",
    ),
    # login
    "sign_in_title": ("Sign in to ss-tools agent", "Вход в ss-tools агент"),
    "username": ("Username", "Имя пользователя"),
    "password": ("Password", "Пароль"),
    "sign_in": ("Sign in", "Войти"),
    "bad_credentials": ("Wrong username or password", "Неверное имя пользователя или пароль"),
    "fill_both": ("Enter a username and a password", "Введите имя пользователя и пароль"),
    "login_unavailable": (
        "Sign-in is unavailable right now; try again later",
        "Вход сейчас недоступен; попробуйте позже",
    ),
    # audit
    "audit_title": ("Audit log", "Журнал аудита"),
    "admins_only": ("Admins only", "Только для администраторов"),
    "admins_only_hint": (
        "The audit log is visible to administrators only.",
        "Журнал аудита доступен только администраторам.",
    ),
    "back_to_agent": ("Back to the agent", "Назад к агенту"),
    "filter_user": ("User", "Пользователь"),
    "filter_tool": ("Tool", "Инструмент"),
    "filter_decision": ("Decision", "Решение"),
    "filter_env": ("Env", "Окружение"),
    "filter_since": ("Since (YYYY-MM-DD)", "С (ГГГГ-ММ-ДД)"),
    "filter_until": ("Until (YYYY-MM-DD)", "По (ГГГГ-ММ-ДД)"),
    "apply_filters": ("Apply", "Применить"),
    "export_csv": ("Export CSV", "Экспорт CSV"),
    "rows_found": ("{n} rows", "Строк: {n}"),
    "bad_date": ("Dates look like 2026-01-31", "Дата в формате 2026-01-31"),
    # refusals of a turn or a decision (RequestRefused.error / an error event's code)
    "refused": ("The request was refused: {reason}", "Запрос отклонён: {reason}"),
    "refused_unauthorized": (
        "Your session has expired. Sign in again.",
        "Сеанс истёк. Войдите снова.",
    ),
    "refused_forbidden": (
        "This conversation belongs to another user.",
        "Этот диалог принадлежит другому пользователю.",
    ),
    "refused_invalid_uicontext": (
        "The page context was not accepted: {reason}",
        "Контекст страницы не принят: {reason}",
    ),
    "refused_invalid_env_id": (
        "That environment id is not valid.",
        "Недопустимый идентификатор окружения.",
    ),
    "refused_history_too_long": (
        "This conversation is too long to continue. Start a new conversation.",
        "Диалог слишком длинный, чтобы продолжить. Начните новый диалог.",
    ),
    "refused_confirmation_unknown": (
        "This confirmation no longer exists.",
        "Это подтверждение больше не существует.",
    ),
    "refused_confirmation_foreign_user": (
        "This confirmation belongs to another user.",
        "Это подтверждение принадлежит другому пользователю.",
    ),
    "refused_confirmation_not_pending": (
        "This confirmation was already answered.",
        "На это подтверждение уже ответили.",
    ),
    "refused_confirmation_replayed": (
        "This confirmation was already answered.",
        "На это подтверждение уже ответили.",
    ),
    "refused_confirmation_expired": (
        "This confirmation has expired. Ask again.",
        "Срок подтверждения истёк. Повторите запрос.",
    ),
    "refused_confirmation_too_early": (
        "Wait for the countdown to end before confirming.",
        "Дождитесь конца отсчёта, прежде чем подтверждать.",
    ),
    "refused_confirmation_mismatch": (
        "This confirmation does not match the pending action.",
        "Подтверждение не совпадает с ожидающим действием.",
    ),
}


STRINGS.update(CONTROL_STRINGS)  # the operator's controls (issue 11)
STRINGS.update(RESULT_STRINGS)


def said(pair: tuple[str, str], lang: str, **fmt: object) -> str:
    """An (English, Russian) pair in ``lang`` (else English), filled with any ``fmt``."""
    text = pair[1] if lang == "ru" else pair[0]
    return text.format(**fmt) if fmt else text


def t(key: str, lang: str = DEFAULT_LANGUAGE, **fmt: object) -> str:
    """The string ``key`` in ``lang`` (English for an unknown language)."""
    return said(STRINGS[key], lang, **fmt)


def refusal_text(error: str, reason: str, lang: str = DEFAULT_LANGUAGE) -> str:
    """Why a request was refused, for the user: the known codes in the page's language,
    any other code as "The request was refused: <reason>"."""
    key = f"refused_{error}"
    if key in STRINGS:
        return t(key, lang, reason=reason)
    return t("refused", lang, reason=reason or error)


def is_refusal_code(error: str) -> bool:
    return f"refused_{error}" in STRINGS


def error_text(code: str, message: str, lang: str, *, tool: str | None = None) -> tuple[str, str]:
    """(what the page says, the server's text as a detail) for an error event: a refusal
    or a known code in the page's language; else the server's text when it is already in
    that language, or "Something went wrong (code)" with the text as the detail."""
    if is_refusal_code(code):
        return refusal_text(code, message, lang), ""
    if f"error_{code}" in STRINGS:
        return t(f"error_{code}", lang, tool=tool or "—"), message
    if message and detect_lang(message) == lang:
        return message, ""
    return t("error_other", lang, code=code), message


def key_label(key: str, lang: str) -> str:
    """A view's column or fact key as a label (``col_<key>``; else the key, readable)."""
    return t(f"col_{key}", lang) if f"col_{key}" in STRINGS else key.replace("_", " ").capitalize()


def model_name(label: str, lang: str) -> str:
    """The answering model's label in the page's language: the offline planner's label is
    ours to translate; a provider's model name (``gpt-4o @ host``) stays as it is."""
    return t("offline_planner", lang) if label == t("offline_planner", "en") else label


def detect_lang(text: str | None) -> Lang:
    """The language of a message: Russian when it has any Cyrillic letter, else English."""
    return "ru" if _CYRILLIC.search(text or "") else "en"


def normalize_language(value: str | None) -> Lang | None:
    """'ru', 'ru-RU', 'RU' -> 'ru'; unsupported or empty -> None."""
    if not value:
        return None
    code = value.strip().lower().replace("_", "-").split("-")[0]
    for lang in LANGUAGES:
        if lang == code:
            return lang
    return None


def language_from_accept(header: str | None) -> Lang | None:
    """The best supported language of an Accept-Language header, by q-value."""
    if not header:
        return None
    ranked: list[tuple[float, int, Lang]] = []
    for index, part in enumerate(header.split(",")):
        bits = part.strip().split(";")
        quality = 1.0
        for bit in bits[1:]:
            name, _, value = bit.strip().partition("=")
            if name == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        lang = normalize_language(bits[0])
        if lang and quality > 0:
            ranked.append((-quality, index, lang))
    return sorted(ranked)[0][2] if ranked else None


def pick_language(query: str | None, stored: str | None, accept_language: str | None) -> Lang:
    """``?lang=`` wins, then the user's stored choice, then the browser, then English."""
    return (
        normalize_language(query)
        or normalize_language(stored)
        or language_from_accept(accept_language)
        or DEFAULT_LANGUAGE
    )
