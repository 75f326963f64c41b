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

The sentences are the ``planner`` catalog's (``app/strings.toml``): ``answer_<code>``,
``page_<page>``, ``step_<next step>``.
"""

from __future__ import annotations

import re
from typing import Any

from app.facts import Refusal
from app.planner.actions import not_doing, spelled_out
from app.planner.markup import md_escape
from app.planner.phrases import say
from app.planner.results import Result
from app.planner.text import Lang

MAX_DETAIL = 300
PAGES = ("dashboard", "dataset", "migration")  # a page with a sentence of its own
# a failure's text -> the suggested next step (keys of the ``planner`` catalog)
NEXT_STEPS: tuple[tuple[str, str], ...] = (
    (r"status unknown", "step_status_unknown"),
    (r"invalid.arguments|required|missing", "step_invalid"),
    (r"timeout|timed out|time-out", "step_timed_out"),
    (r"does not allow DML", "step_no_dml"),
    (
        # Superset answered (often with a 500) and passed on the database's own error: the
        # query is wrong, Superset is not down (a connection failure reads differently,
        # within the 500 characters that follow: a bound, or each repetition of the
        # sentence would read the rest of its line again)
        r"SQL Lab refused the query"
        r"(?![^\n]{0,500}?(?:connect|unreachable|unavailable|timed? ?out))",
        "step_query_rejected",
    ),
    (r"maintenance", "step_maintenance"),
    (r"not found|404|unknown", "step_not_found"),
    (r"unavailable|unreachable|connect|5\d\d|refused", "step_unreachable"),
    (r"auth|login|401|403|credential", "step_login"),
    (r"environment|env", "step_environment"),
)

_NEXT_STEPS = tuple((re.compile(pattern, re.IGNORECASE), step) for pattern, step in NEXT_STEPS)


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
            return say(step, lang)
    return say("step_default", lang)


def _cancelled(tool: str, args: dict[str, Any], r: Refusal, lang: Lang) -> str:
    reason = _detail(r.reason or "")
    why = f": {reason}" if reason else ""
    return say("answer_cancelled", lang, what=not_doing(tool, args, lang), why=why)


def _denied(request: str, action: str, r: Refusal, lang: Lang) -> str:
    """Who needs which role: the role needed, and the person's when the refusal says."""
    ask = say("ask_admin", lang)
    if r.required_role is None:
        return say("answer_denied", lang, action=action, request=request, ask=ask)
    need = md_escape(r.required_role)
    if r.role is None:
        return say("answer_denied_needs", lang, request=request, need=need, ask=ask)
    have = md_escape(r.role)
    return say("answer_denied_yours", lang, request=request, need=need, have=have, ask=ask)


def _not_available(action: str, r: Refusal, lang: Lang) -> str:
    page = say(f"page_{r.page}" if r.page in PAGES else "page_this", lang)
    return say("answer_not_available", lang, page=page, action=action)


def _maintenance(request: str, r: Refusal, lang: Lang) -> str:
    env = md_escape(r.env_id) if r.env_id else say("the_environment", lang)
    reason = _detail(r.reason or "")
    why = f" ({reason})" if reason else ""
    return say("answer_maintenance", lang, env=env, why=why, request=request)


def _environment(request: str, r: Refusal, lang: Lang) -> str:
    env = md_escape(r.env_id) if r.env_id else ""
    problems = _problems(r)
    why = f": {problems}" if problems else ""
    head = say("answer_environment", lang, request=request, env=env, why=why)
    return f"{' '.join(head.split())} {say('step_environment', lang)}"


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
    if r.code in ("unknown_tool", "repeated_call"):
        return say(f"answer_{r.code}", lang, request=request)
    problems = _problems(r)
    if r.code == "preflight_failed":
        found = f": {problems}" if problems else ""
        return say("answer_preflight_failed", lang, request=request, found=found)
    # invalid_arguments (and any code a newer core may add): what was wrong, what to do
    why = f": {problems}" if problems else ""
    return f"{say('answer_could_not', lang, action=action, why=why)} {say('step_invalid', lang)}"


def outcome_answer(result: Result, tool: str, args: dict[str, Any], lang: Lang, action: str) -> str:
    """The answer to ``tool(args)``'s refusal or failure (see the module docstring);
    ``action`` is what the tool does ("find dashboards"), in ``lang``."""
    if result.refusal is not None:
        return _refused(result.refusal, tool, args, lang, action)
    detail = _detail(result.message)
    why = f": {detail}" if detail else ""
    head = say("answer_could_not", lang, action=action, why=why)
    return f"{head} {next_step(result.message or str(result.code), lang)}"
