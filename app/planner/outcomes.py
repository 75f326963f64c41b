"""Answers to a call that did not run or did not succeed, in the person's language.

A call that did not run comes back as ``REFUSED: {json}``: an :class:`app.facts.Refusal`,
whose fields (its code, the roles, the page, the environment, the reason, the errors)
are what the answer says. Its ``message`` is an English sentence for logs and is never
read: rewording it changes no answer. A call that failed comes back as
``ERROR: <text>``, the failure's own text. The answer names the request it is about,
spelled out ("delete dashboard 42 in prod"), and says what to do next:

* ``cancelled`` — the person cancelled it on the card: one sentence, with their reason;
  the call is not retried in this turn;
* ``permission_denied`` — who needs which role (``required_role``; the person's is
  ``role``);
* ``not_available`` — which page's context leaves the tool out (``page``); the way on
  (leaving the context) is an offer the core puts on the events, not text written here;
* ``maintenance`` — which environment, and the window's reason;
* ``approval_denied`` — who denied it, with their reason; ``approval_stale`` — approved,
  but what it depends on changed since the request;
* ``environment``, ``invalid_arguments``, ``preflight_failed``, ``unknown_tool``,
  ``repeated_call`` — what went wrong (``errors``) and a next step;
* ``account_not_linked``, ``link_expired``, ``superset_denied`` — the call acts in
  Superset as the person: connect the account (the way is an offer the core puts on the
  events), or Superset's own words for why it refused;
* a failure (``ERROR``) — what went wrong and a next step chosen by its text.
"""

from __future__ import annotations

import re
from typing import Any

from app.facts import Refusal
from app.planner.actions import not_doing, spelled_out
from app.planner.markup import md_escape
from app.planner.phrases import pick, say, tr
from app.planner.results import Result
from app.planner.text import Lang

MAX_DETAIL = 300
PAGES: dict[str, tuple[str, str]] = {
    "dashboard": ("a dashboard page", "странице дашборда"),
    "dataset": ("a dataset page", "странице датасета"),
    "migration": ("the migration page", "странице миграции"),
}
THIS_PAGE = ("this page", "этой странице")

INVALID_STEP = (
    "Some details were missing or invalid: repeat the request with the ids, names "
    "and environment spelled out.",
    "Не хватило или неверны детали: повторите запрос, указав id, имена и окружение.",
)
ENVIRONMENT_STEP = (
    "Choose an environment (list environments shows them) and try again.",
    "Выберите окружение (их покажет список окружений) и повторите.",
)
# a failure's text -> the suggested next step
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
    (r"invalid.arguments|required|missing", INVALID_STEP),
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
        # query is wrong, Superset is not down (a connection failure reads differently,
        # within the 500 characters that follow: a bound, or each repetition of the
        # sentence would read the rest of its line again)
        r"SQL Lab refused the query"
        r"(?![^\n]{0,500}?(?:connect|unreachable|unavailable|timed? ?out))",
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
    (r"environment|env", ENVIRONMENT_STEP),
)

_NEXT_STEPS = tuple((re.compile(pattern, re.IGNORECASE), step) for pattern, step in NEXT_STEPS)

DEFAULT_NEXT_STEP = (
    "Check the request and try again, or ask me for something else.",
    "Проверьте запрос и повторите, или попросите меня о другом.",
)


def _detail(text: str) -> str:
    text = " ".join(text.split()).rstrip(".")
    return md_escape(text if len(text) <= MAX_DETAIL else text[: MAX_DETAIL - 1] + "…")


def _problems(refusal: Refusal) -> str:
    """The refusal's errors (else its reason), escaped, as one clause; "" when none."""
    said = "; ".join(e.strip().rstrip(".") for e in refusal.errors if e.strip())
    return _detail(said or refusal.reason or "")


def next_step(message: str, lang: Lang) -> str:
    for pattern, step in _NEXT_STEPS:
        if pattern.search(message):
            return pick(step, lang)
    return pick(DEFAULT_NEXT_STEP, lang)


def _cancelled(tool: str, args: dict[str, Any], r: Refusal, lang: Lang) -> str:
    reason = _detail(r.reason or "")
    why = f": {reason}" if reason else ""
    what = not_doing(tool, args, lang)
    return tr(lang, f"Cancelled — {what}{why}.", f"Вы отменили {what}{why}.")


def _denied(request: str, action: str, r: Refusal, lang: Lang) -> str:
    ask = tr(
        lang,
        "Ask an administrator if you need it.",
        "Если это действие нужно, обратитесь к администратору.",
    )
    if r.required_role is None:
        return tr(
            lang,
            f"Your role may not {action}, so “{request}” was not run. {ask}",
            f"Вашей роли нельзя {action}, поэтому «{request}» не выполнено. {ask}",
        )
    need = md_escape(r.required_role)
    if r.role is None:
        return tr(
            lang,
            f"“{request}” needs the {need} role. {ask}",
            f"Для «{request}» нужна роль {need}. {ask}",
        )
    have = md_escape(r.role)
    return tr(
        lang,
        f"“{request}” needs the {need} role; yours is {have}. {ask}",
        f"Для «{request}» нужна роль {need}, а у вас — {have}. {ask}",
    )


def _not_available(action: str, r: Refusal, lang: Lang) -> str:
    page = pick(PAGES.get(r.page or "", THIS_PAGE), lang)
    return tr(
        lang,
        f"On {page} I can't {action}: the page's context leaves it out.",
        f"На {page} я не могу {action}: контекст страницы это исключает.",
    )


def _maintenance(request: str, r: Refusal, lang: Lang) -> str:
    env = md_escape(r.env_id) if r.env_id else tr(lang, "The environment", "Окружение")
    reason = _detail(r.reason or "")
    why = f" ({reason})" if reason else ""
    return tr(
        lang,
        f"{env} is in a maintenance window{why}, so “{request}” was not run. "
        "Wait for the window to end, or end it first.",
        f"{env} в режиме обслуживания{why}, поэтому «{request}» не выполнено. "
        "Дождитесь окончания или сначала завершите обслуживание.",
    )


def _environment(request: str, r: Refusal, lang: Lang) -> str:
    env = md_escape(r.env_id) if r.env_id else ""
    problems = _problems(r)
    why = f": {problems}" if problems else ""
    head = tr(
        lang,
        f"“{request}” was not run: the environment {env} is not configured or not usable{why}.",
        f"«{request}» не выполнено: окружение {env} не настроено или недоступно{why}.",
    )
    return f"{' '.join(head.split())} {pick(ENVIRONMENT_STEP, lang)}"


def _as_the_person(request: str, r: Refusal, lang: Lang) -> str:
    """A call refused because it acts in Superset as the person (see the docstring)."""
    env = md_escape(r.env_id or "")
    if r.code == "superset_denied":
        return say("answer_superset_denied", lang, request=request, env=env,
                   reason=_detail(r.reason or ""))  # fmt: skip
    if r.code == "account_not_linked" and r.reason:  # nothing to connect: an operator maps it
        return say("answer_account_not_mapped", lang, request=request, env=env)
    return say(f"answer_{r.code}", lang, request=request, env=env)


def _refused(r: Refusal, tool: str, args: dict[str, Any], lang: Lang, action: str) -> str:
    request = md_escape(spelled_out(tool, args, lang))
    if r.code in ("account_not_linked", "link_expired", "superset_denied"):
        return _as_the_person(request, r, lang)
    if r.code == "cancelled":
        return _cancelled(tool, args, r, lang)
    if r.code == "approval_denied":  # a second person said no, with their reason
        reason = _detail(r.reason or "")
        why = f": {reason}" if reason else ""
        return say("approval_denied", lang, request=request, by=md_escape(r.by or "?"), why=why)
    if r.code == "approval_stale":
        return say("approval_stale", lang, request=request)
    if r.code == "permission_denied":
        return _denied(request, action, r, lang)
    if r.code == "not_available":
        return _not_available(action, r, lang)
    if r.code == "maintenance":
        return _maintenance(request, r, lang)
    if r.code == "environment":
        return _environment(request, r, lang)
    if r.code == "unknown_tool":
        return tr(lang, "I don't have a tool for that.", "Для этого у меня нет инструмента.")
    if r.code == "repeated_call":
        return tr(
            lang,
            f"“{request}” was already run in this turn, so I did not run it again.",
            f"«{request}» уже выполнялось в этом ходе, поэтому повторять я не стал.",
        )
    problems = _problems(r)
    if r.code == "preflight_failed":
        found = f": {problems}" if problems else ""
        return tr(
            lang,
            f"The check before “{request}” found problems{found}.",
            f"Проверка перед «{request}» нашла проблемы{found}.",
        )
    # invalid_arguments (and any code a newer core may add): what was wrong, what to do
    why = f": {problems}" if problems else ""
    head = tr(lang, f"I couldn't {action}{why}.", f"Не удалось {action}{why}.")
    return f"{head} {pick(INVALID_STEP, lang)}"


def outcome_answer(result: Result, tool: str, args: dict[str, Any], lang: Lang, action: str) -> str:
    """The answer to ``tool(args)``'s refusal or failure (see the module docstring);
    ``action`` is what the tool does ("find dashboards"), in ``lang``."""
    if result.refusal is not None:
        return _refused(result.refusal, tool, args, lang, action)
    detail = _detail(result.message)
    why = f": {detail}" if detail else ""
    head = tr(lang, f"I couldn't {action}{why}.", f"Не удалось {action}{why}.")
    return f"{head} {next_step(result.message or str(result.code), lang)}"
