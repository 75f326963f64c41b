"""Typed facts the core states and any chat model reads: the turn's facts and a refusal.

**The turn's facts** (:class:`TurnFacts`) are one block of the prompt, beside the page's
``[USER CONTEXT …]`` block (``app.context.inject_uicontext``)::

    [TURN FACTS]
    selected_env_id: prod
    environments: dev(dev), prod(prod)
    other_tools: <the allowed tools this call was not offered>
    [END TURN FACTS]

(``other_tools``: the allowed tools a narrowed model call was not offered, by name:
``app.agent.tool_offer``.) The core writes it (:meth:`TurnFacts.block`); a model reads
it as text, and a model without a language model in it (the offline planner) reads it
back with :func:`read_turn_facts`. Environment ids are checked by the doors
(``ENV_ID_PATTERN``), so the block holds nothing a person typed freely.

**A refusal** (:class:`Refusal`) is why a proposed call did not run: the guard said no
(permission, the page's context, the environment, a maintenance window, an unknown
tool, invalid arguments, a failed preflight, no Superset account of the person's), Superset
refused the person's account, the turn stopped a repeated call, the model asked for several
calls in one reply and only one ran, the person cancelled it, or a second person denied it
(or approved it after something changed). The guard returns it as a value; the model reads
it as the call's result (:meth:`Refusal.tool_result`: ``REFUSED: {json}``, read back with
:func:`read_refusal`); the events carry it (``ErrorEvent.refusal``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

FACTS_HEADER = "[TURN FACTS]"
FACTS_END = "[END TURN FACTS]"
SELECTED_ENV_KEY = "selected_env_id"
ENVIRONMENTS_KEY = "environments"
LANGUAGE_KEY = "language"  # the language the turn is said in ("en" | "ru")
OTHER_TOOLS_KEY = "other_tools"  # allowed tools the model call was not offered, by name
_BLOCK = re.compile(
    rf"^{re.escape(FACTS_HEADER)}$(.*?)(?:^{re.escape(FACTS_END)}$|\Z)", re.MULTILINE | re.DOTALL
)
# "key: value" on one line, the value up to its last non-blank (blanks never cross a line)
_LINE = re.compile(r"^[^\S\n]*+([a-z_]++)[^\S\n]*+:[^\S\n]*+((?:[^\S\n]*+\S)*+)", re.MULTILINE)
_ENV = re.compile(r"\A\s*+([A-Za-z0-9_.-]++)\s*+\(\s*+([a-z]++)\s*+\)\s*+$")


@dataclass(frozen=True)
class TurnFacts:
    """What a turn is asked under: the selected environment (None: none chosen) and the
    configured environments with their tiers (already resolved by policy)."""

    selected_env: str | None = None
    environments: Mapping[str, str] = field(default_factory=dict)  # env id -> tier
    lang: str | None = None  # the turn's language (the page's): answers are said in it
    # the allowed tools this model call was not offered (app.agent.tool_offer): by name
    other_tools: tuple[str, ...] = ()

    def block(self) -> str:
        envs = ", ".join(f"{env}({tier})" for env, tier in self.environments.items())
        lines = [
            FACTS_HEADER,
            f"{SELECTED_ENV_KEY}: {self.selected_env or 'none'}",
            f"{ENVIRONMENTS_KEY}: {envs or 'none'}",
        ]
        if self.lang:
            lines.append(f"{LANGUAGE_KEY}: {self.lang}")
        if self.other_tools:
            lines.append(f"{OTHER_TOOLS_KEY}: {', '.join(self.other_tools)}")
        return "\n".join((*lines, FACTS_END))


def read_turn_facts(text: str) -> TurnFacts | None:
    """The facts block in ``text`` (the last one when there are several), or None."""
    blocks = _BLOCK.findall(text)
    if not blocks:
        return None
    body = blocks[-1]
    values = {m.group(1): m.group(2) for m in _LINE.finditer(body)}
    selected = values.get(SELECTED_ENV_KEY)
    envs: dict[str, str] = {}
    for part in (values.get(ENVIRONMENTS_KEY) or "").split(","):
        m = _ENV.match(part)
        if m:
            envs[m.group(1)] = m.group(2)
    lang = values.get(LANGUAGE_KEY)
    return TurnFacts(
        None if selected in (None, "", "none") else selected,
        envs,
        lang if lang in ("en", "ru") else None,
    )


# ---- refusals --------------------------------------------------------------------------
RefusalCode = Literal[
    "permission_denied",  # the role may not run the tool (required_role, alternatives)
    "not_available",  # the page's context leaves the tool out (page, a way forward)
    "unknown_tool",  # no such tool (tools: the ones that exist)
    "invalid_arguments",  # the args model said no (errors)
    "environment",  # the call's environment is not configured or not usable
    "maintenance",  # the environment is in a maintenance window (reason)
    "preflight_failed",  # the check before the card found problems (errors)
    "repeated_call",  # the same call with the same arguments again in one turn
    "one_at_a_time",  # another call of a reply that asked for several (tools: set aside)
    "cancelled",  # the person cancelled it on the card (reason)
    "changed_since",  # an undo: the object changed after the agent's write (errors: what)
    "not_undoable",  # an undo: unknown, expired or already undone (reason)
    "account_not_linked",  # the person has no Superset account on env_id (a way: link one)
    "link_expired",  # Superset no longer honours the person's link on env_id (reason)
    "superset_denied",  # Superset refused the person's account (reason: its own words)
    "approval_denied",  # the second person denied it (by, reason)
    "approval_stale",  # approved, but something changed since the request (errors)
]
REFUSAL_CODES: tuple[str, ...] = RefusalCode.__args__  # type: ignore[attr-defined]
REFUSED_PREFIX = "REFUSED: "


class Alternative(BaseModel):
    """Something the caller may do instead: a label and the request that asks for it."""

    action: str
    prompt: str


class Refusal(BaseModel):
    """Why a proposed call did not run (see the module docstring). ``message`` is one
    plain English sentence for logs and models; the rest are the facts a door turns into
    words in the person's language."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    code: RefusalCode
    tool_name: str
    message: str
    args: dict[str, Any] = Field(default_factory=dict)
    role: str | None = None
    required_role: str | None = None
    page: str | None = None  # the page's object type (not_available)
    env_id: str | None = None
    reason: str | None = None  # a maintenance window's, a person's or Superset's own words
    account: str | None = None  # the Superset account the call acted as
    by: str | None = None  # approval_denied: who denied it
    errors: list[str] = Field(default_factory=list)
    # unknown_tool: the tools that exist; one_at_a_time: the calls set aside
    tools: list[str] = Field(default_factory=list)
    alternatives: list[Alternative] = Field(default_factory=list)

    def tool_result(self) -> str:
        """The call's result as the model reads it: ``REFUSED: {json}``."""
        data = self.model_dump(mode="json", exclude_defaults=True)
        data["code"] = self.code
        return REFUSED_PREFIX + json.dumps(data, ensure_ascii=False, sort_keys=True)


def read_refusal(text: str) -> Refusal | None:
    """The refusal a call's result states, or None when the result is not one."""
    if not text.startswith(REFUSED_PREFIX):
        return None
    try:
        return Refusal.model_validate_json(text[len(REFUSED_PREFIX) :])
    except ValidationError:
        return None
