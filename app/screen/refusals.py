"""A refused call said in the page's language, from its typed facts (``ErrorEvent.refusal``):
which tool, which page, which environment, the person's or the window's own reason. The
server's English ``message`` is for logs and models; the page never shows it.

A refusal the turn goes on from (the model reads it and answers, or a way on is offered)
is a notice; one that says no to what the person asked (an environment, a maintenance
window, a failed check) reads as an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from app.i18n import STRINGS, t

#: codes shown as a notice (info), not as an error: the turn goes on from them
NOTICE_CODES = (
    "not_available",
    "unknown_tool",
    "invalid_arguments",
    "repeated_call",
    "one_at_a_time",
)
#: codes whose facts (``errors``) are worth a folded detail: the check's own findings
DETAIL_CODES = ("preflight_failed", "changed_since", "approval_stale")


class RefusalFacts(Protocol):
    """The fields of ``app.facts.Refusal`` the page reads."""

    @property
    def code(self) -> str: ...
    @property
    def tool_name(self) -> str: ...
    @property
    def page(self) -> str | None: ...
    @property
    def env_id(self) -> str | None: ...
    @property
    def required_role(self) -> str | None: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def by(self) -> str | None: ...
    @property
    def errors(self) -> Sequence[str]: ...
    @property
    def tools(self) -> Sequence[str]: ...


def refusal_notice(refusal: RefusalFacts, lang: str) -> tuple[str, str]:
    """(the sentence, a detail) for ``refusal`` in ``lang``; the detail is the check's
    findings for a failed preflight, else empty."""
    tool, env, reason = refusal.tool_name, refusal.env_id or "—", refusal.reason
    code = refusal.code
    if code == "not_available":
        page_key = f"refusal_page_{refusal.page}"
        page = t(page_key if page_key in STRINGS else "refusal_page_other", lang)
        text = t("refusal_not_available", lang, tool=tool, page=page)
    elif code == "permission_denied":
        text = t(
            "refusal_permission_denied", lang, tool=tool, role=refusal.required_role or "admin"
        )
    elif code == "not_undoable":  # why, as the store's word (app.store.undo.WHY_NOT)
        key = f"refusal_not_undoable_{reason}"
        text = t(key if key in STRINGS else "refusal_not_undoable", lang)
    elif code == "approval_denied":  # a second person said no: who, and why
        key = "refusal_approval_denied_why" if reason else "refusal_approval_denied"
        text = t(key, lang, tool=tool, by=refusal.by or "—", reason=reason or "")
    elif code in ("maintenance", "cancelled", "superset_denied"):
        key = f"refusal_{code}_why" if reason else f"refusal_{code}"
        text = t(key, lang, tool=tool, env=env, reason=reason or "")
    elif f"refusal_{code}" in STRINGS:  # one_at_a_time: ``tools`` are the calls set aside
        text = t(f"refusal_{code}", lang, tool=tool, env=env, count=len(refusal.tools) + 1)
    else:  # a code this page does not know yet: still its words, never the server's
        text = t("error_other", lang, code=code)
    detail = "\n".join(refusal.errors) if code in DETAIL_CODES else ""
    return text, detail


def is_notice(refusal: RefusalFacts) -> bool:
    return refusal.code in NOTICE_CODES
