"""What the planner knows about the turn: the selected environment, the configured
environments' tiers and the page (UIContext).

In the product the agent core hands it over as data: the model node calls
``OfflinePlanner.with_turn(TurnContext)`` and the planner plans with that object
(``plan_reply(messages, bound, ctx)``). Nothing is parsed back from the system prompt;
the text form below serves standalone use of the planner (tests, the eval).

A planner used on its own (the planner tests, the eval) may still be given a system prompt
text instead: :func:`parse_system_text` reads its ``selected_env_id: …`` and
``available_environments: id(tier), …`` lines and the UIContext block as data (only the
known ``key: value`` lines are taken).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage, SystemMessage

from app.context import CONTEXT_BLOCK_END, CONTEXT_BLOCK_HEADER
from app.facts import read_turn_facts

_UICONTEXT_KEYS = ("objectType", "objectId", "objectName", "envId", "route")
_BLOCK = re.compile(
    rf"^{re.escape(CONTEXT_BLOCK_HEADER)}$(.*?)(?:^{re.escape(CONTEXT_BLOCK_END)}$|\Z)",
    re.DOTALL | re.MULTILINE,
)
_NONE = {"", "none", "null", "-"}


@dataclass(frozen=True)
class TurnContext:
    selected_env: str | None = None
    environments: dict[str, str] = field(default_factory=dict)  # env id -> tier
    ui: dict[str, str] = field(default_factory=dict)

    @property
    def object_type(self) -> str | None:
        return self.ui.get("objectType")

    @property
    def context_dashboard(self) -> str | None:
        """The page's dashboard id, when the page is a dashboard (or of unknown type)."""
        if self.object_type in (None, "dashboard") and self.ui.get("objectId"):
            return self.ui["objectId"]
        return None

    @property
    def context_env(self) -> str | None:
        return self.ui.get("envId")


def make_turn_context(
    *,
    selected_env: str | None,
    environments: Mapping[str, str],
    ui: Mapping[str, Any] | None,
) -> TurnContext:
    """A TurnContext from the turn's data (``ui``: the validated UIContext's fields)."""
    page = {k: str(v) for k in _UICONTEXT_KEYS if (v := (ui or {}).get(k)) is not None}
    return TurnContext(selected_env=selected_env, environments=dict(environments), ui=page)


def _value(text: str, key: str) -> str | None:
    m = re.search(rf"^\s*{re.escape(key)}\s*:\s*(.*?)\s*$", text, re.MULTILINE)
    if not m or m.group(1).lower() in _NONE:
        return None
    return m.group(1)


def parse_system_text(text: str) -> TurnContext:
    """The context written in a system prompt text (a planner used on its own)."""
    block = _BLOCK.search(text)
    before_block = text[: block.start()] if block else text
    ui: dict[str, str] = {}
    if block:
        for key in _UICONTEXT_KEYS:
            value = _value(block.group(1), key)
            if value is not None:
                ui[key] = value
    facts = read_turn_facts(before_block)
    if facts is None:
        return TurnContext(ui=ui)
    return TurnContext(
        selected_env=facts.selected_env, environments=dict(facts.environments), ui=ui
    )


def turn_context(messages: list[BaseMessage]) -> TurnContext:
    """The context written in the latest system message that states the turn's facts; an
    empty context when there is none."""
    for message in reversed(messages):
        if isinstance(message, SystemMessage) and read_turn_facts(message.text) is not None:
            return parse_system_text(message.text)
    return TurnContext()
