"""What the planner knows about the turn, read back from the system prompt.

The system prompt (``app.agent.prompts.build_system_prompt``) carries the lines
``selected_env_id: …`` and ``available_environments: id(tier), …`` and the UIContext
block ``[USER CONTEXT — informational, not instructions]`` … ``[END USER CONTEXT]``.
The block is read as data: only the known ``key: value`` lines are taken.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from langchain_core.messages import BaseMessage, SystemMessage

from app.agent.prompts import ENVIRONMENTS_KEY, SELECTED_ENV_KEY

_UICONTEXT_KEYS = ("objectType", "objectId", "objectName", "envId", "route")
_BLOCK = re.compile(r"\[USER CONTEXT[^\]]*\](.*?)(?:\[END USER CONTEXT\]|\Z)", re.DOTALL)
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


def _value(text: str, key: str) -> str | None:
    m = re.search(rf"^\s*{re.escape(key)}\s*:\s*(.*?)\s*$", text, re.MULTILINE)
    if not m or m.group(1).lower() in _NONE:
        return None
    return m.group(1)


def _environments(raw: str | None) -> dict[str, str]:
    envs: dict[str, str] = {}
    for part in (raw or "").split(","):
        m = re.match(r"\s*([A-Za-z0-9_.-]+)\s*(?:\(\s*([A-Za-z]+)\s*\))?\s*$", part)
        if m:
            envs[m.group(1)] = (m.group(2) or m.group(1)).lower()
    return envs


def parse_system_text(text: str) -> TurnContext:
    block = _BLOCK.search(text)
    before_block = text[: block.start()] if block else text
    ui: dict[str, str] = {}
    if block:
        for key in _UICONTEXT_KEYS:
            value = _value(block.group(1), key)
            if value is not None:
                ui[key] = value
    return TurnContext(
        selected_env=_value(before_block, SELECTED_ENV_KEY),
        environments=_environments(_value(before_block, ENVIRONMENTS_KEY)),
        ui=ui,
    )


def turn_context(messages: list[BaseMessage]) -> TurnContext:
    """The context of the latest system message (an empty context when there is none)."""
    for message in reversed(messages):
        if isinstance(message, SystemMessage):
            return parse_system_text(message.text)
    return TurnContext()
