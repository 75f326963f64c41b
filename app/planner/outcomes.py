"""Answers to a call that did not run or did not succeed, in the person's language.

The guard and the tool node report these as ``CODE: message`` results (English, for the
log and for any model). The answer names the request it is about, spelled out ("delete
dashboard 42 in prod"), and says what to do next:

* ``CANCELLED[: reason]`` — one sentence; the call is not retried in this turn;
* ``NOT_AVAILABLE`` — the page's context leaves the tool out: the answer ends with the
  "continue without this page's context" offer (:mod:`app.offers`);
* ``PERMISSION_DENIED`` — the role is missing; no offer (another page would not help);
* ``MAINTENANCE``, ``INVALID_ARGUMENTS``, ``PREFLIGHT_FAILED``, ``UNKNOWN_TOOL``,
  ``ERROR`` — what went wrong and a next step.
"""

from __future__ import annotations

import re
from typing import Any

from app.offers import continue_line
from app.planner.actions import not_doing, spelled_out
from app.planner.markup import md_escape
from app.planner.phrases import pick, tr
from app.planner.text import Lang

MAX_DETAIL = 300
# the guard's own words before a problem (the answer says them in the person's language)
_SEAM_PREFIX = re.compile(
    r"^(?:invalid arguments for \w+|preflight for \w+(?: failed)?|preflight found problems):?\s*"
)
_BY_THE_USER = re.compile(r"^\s*cancelled by the user\b:?\s*", re.IGNORECASE)
PAGES: dict[str, tuple[str, str]] = {
    "dashboard": ("a dashboard page", "странице дашборда"),
    "dataset": ("a dataset page", "странице датасета"),
    "migration": ("the migration page", "странице миграции"),
}

# error keyword -> suggested next step
NEXT_STEPS: tuple[tuple[str, tuple[str, str]], ...] = (
    (
        r"status unknown",
        (
            "It may have happened anyway: ask for the status of your tasks, or check "
            "Superset, before trying again.",
            "Операция могла выполниться: спросите статус своих задач или проверьте Superset, "
            "прежде чем повторять.",
        ),
    ),
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
        r"does not allow DML",
        (
            "This database does not allow statements that change data in SQL Lab: run a "
            "SELECT, or ask an administrator to allow DML on it.",
            "Эта база не разрешает в SQL Lab запросы, меняющие данные: выполните SELECT "
            "или попросите администратора разрешить DML.",
        ),
    ),
    (
        # Superset answered (often with a 500) and passed on the database's own error: the
        # query is wrong, Superset is not down (a connection failure reads differently)
        r"SQL Lab refused the query(?!.*(?:connect|unreachable|unavailable|timed? ?out))",
        (
            "The database rejected the query: check its table and column names (exploring "
            "the database shows them) and the SQL dialect, then try again.",
            "База данных отклонила запрос: проверьте имена таблиц и колонок (их покажет "
            "обзор базы данных) и диалект SQL, затем повторите.",
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


def _detail(text: str) -> str:
    text = text.strip().rstrip(".")
    return md_escape(text if len(text) <= MAX_DETAIL else text[: MAX_DETAIL - 1] + "…")


def next_step(message: str, lang: Lang) -> str:
    for pattern, step in NEXT_STEPS:
        if re.search(pattern, message, re.IGNORECASE):
            return pick(step, lang)
    return pick(DEFAULT_NEXT_STEP, lang)


def _cancelled(tool: str, args: dict[str, Any], reason: str, lang: Lang) -> str:
    reason = _BY_THE_USER.sub("", reason)  # the tool node's "cancelled by the user: <why>"
    why = f": {_detail(reason)}" if reason.strip() else ""
    what = not_doing(tool, args, lang)
    return tr(lang, f"Cancelled — {what}{why}.", f"Вы отменили {what}{why}.")


def _denied(request: str, message: str, lang: Lang) -> str:
    m = re.search(r"requires the (\S+) role; your role is (\S+?)\.?$", message)
    need, have = (md_escape(m.group(1)), md_escape(m.group(2))) if m else ("admin", "—")
    return tr(
        lang,
        f"“{request}” needs the {need} role; yours is {have}. Ask an administrator if you need it.",
        f"Для «{request}» нужна роль {need}, а у вас — {have}. "
        "Если это действие нужно, обратитесь к администратору.",
    )


def _not_available(action: str, request: str, message: str, lang: Lang) -> str:
    m = re.search(r"\((\w+) page\)", message)
    page = pick(PAGES.get(m.group(1) if m else "", ("this page", "этой странице")), lang)
    head = tr(
        lang,
        f"On {page} I can't {action}: the page's context leaves it out.",
        f"На {page} я не могу {action}: контекст страницы это исключает.",
    )
    return head + continue_line(request, lang)


def _maintenance(request: str, message: str, lang: Lang) -> str:
    m = re.search(r"environment '([^']+)' is in a maintenance window(?::\s*(.*?))?;", message)
    env = md_escape(m.group(1)) if m else "—"
    why = f" ({_detail(m.group(2))})" if m and m.group(2) else ""
    return tr(
        lang,
        f"{env} is in a maintenance window{why}, so “{request}” was not run. "
        "Wait for the window to end, or end it first.",
        f"{env} в режиме обслуживания{why}, поэтому «{request}» не выполнено. "
        "Дождитесь окончания или сначала завершите обслуживание.",
    )


def outcome_answer(
    code: str, message: str, tool: str, args: dict[str, Any], lang: Lang, action: str
) -> str:
    """The answer to a ``code`` result of ``tool(args)`` (see the module docstring);
    ``action`` is what the tool does ("find dashboards"), in ``lang``."""
    request = md_escape(spelled_out(tool, args, lang))
    if code == "CANCELLED":
        return _cancelled(tool, args, message, lang)
    if code == "PERMISSION_DENIED":
        return _denied(request, message, lang)
    if code == "NOT_AVAILABLE":
        return _not_available(action, spelled_out(tool, args, lang), message, lang)
    if code == "MAINTENANCE":
        return _maintenance(request, message, lang)
    if code == "UNKNOWN_TOOL":
        return tr(lang, "I don't have a tool for that.", "Для этого у меня нет инструмента.")
    detail = _detail(re.sub(_SEAM_PREFIX, "", message))
    if code == "PREFLIGHT_FAILED":
        return tr(
            lang,
            f"The check before “{request}” found problems: {detail}.",
            f"Проверка перед «{request}» нашла проблемы: {detail}.",
        )
    head = tr(lang, f"I couldn't {action}: {detail}.", f"Не удалось {action}: {detail}.")
    return f"{head} {next_step(message or code, lang)}"
