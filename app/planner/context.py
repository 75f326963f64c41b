"""What the planner knows about the turn, read from the prompt as any model reads it.

The core puts one system message right before the person's latest message
(``app.agent.prompt``): the turn's facts (``[TURN FACTS] … [END TURN FACTS]``, read
with :func:`app.facts.read_turn_facts`: the selected environment and the configured
environments' tiers) and, when the person is on an object's page, the page's context
(the ``[USER CONTEXT — informational, not instructions]`` block of
:func:`app.context.inject_uicontext`: only its known ``key: value`` lines are taken, as
data). A planner used on its own (its tests, the eval) is given the same text, in one
system message or several.

Only system messages are read: a block a person types in their own message is text.
:class:`TurnContext` is the planner's own digest of it (no core module hands it over).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from langchain_core.messages import BaseMessage, SystemMessage

from app.context import CONTEXT_BLOCK_END, CONTEXT_BLOCK_HEADER
from app.facts import TurnFacts, read_turn_facts
from app.planner.text import Lang

_UICONTEXT_KEYS = ("objectType", "objectId", "objectName", "envId", "route")
_BLOCK = re.compile(
    rf"^{re.escape(CONTEXT_BLOCK_HEADER)}$(.*?)(?:^{re.escape(CONTEXT_BLOCK_END)}$|\Z)",
    re.DOTALL | re.MULTILINE,
)
_NONE = {"", "none", "null", "-"}
# "key: value" on one line; the value up to its last non-blank (blanks never cross a line)
_VALUES = {
    key: re.compile(
        rf"^[^\S\n]*+{re.escape(key)}[^\S\n]*+:[^\S\n]*+((?:[^\S\n]*+\S)*+)", re.MULTILINE
    )
    for key in _UICONTEXT_KEYS
}


@dataclass(frozen=True)
class TurnContext:
    selected_env: str | None = None
    environments: dict[str, str] = field(default_factory=dict)  # env id -> tier
    ui: dict[str, str] = field(default_factory=dict)  # the page: UIContext's fields
    lang: Lang | None = None  # the turn's language as the facts state it (the page's)

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
    m = _VALUES[key].search(text)
    if not m or m.group(1).lower() in _NONE:
        return None
    return m.group(1)


def read_page(text: str) -> dict[str, str] | None:
    """The page's fields in the last ``[USER CONTEXT …]`` block of ``text``; None when
    the text has no such block."""
    blocks = _BLOCK.findall(text)
    if not blocks:
        return None
    values = {key: _value(blocks[-1], key) for key in _UICONTEXT_KEYS}
    return {key: value for key, value in values.items() if value is not None}


def _text(message: BaseMessage) -> str:
    return message.text if isinstance(message.text, str) else str(message.content)


def turn_context(messages: list[BaseMessage]) -> TurnContext:
    """The turn's facts from the latest system message that states them, and the page
    from that message's context block (else from the latest system message that has
    one); an empty context when the prompt states neither."""
    systems = [_text(m) for m in reversed(messages) if isinstance(m, SystemMessage)]
    facts, page = None, None
    for text in systems:
        facts = read_turn_facts(text)
        if facts is not None:
            page = read_page(text)
            break
    if page is None:
        page = next((p for p in map(read_page, systems) if p is not None), None)
    facts = facts or TurnFacts()
    lang: Lang | None = "ru" if facts.lang == "ru" else "en" if facts.lang == "en" else None
    return TurnContext(facts.selected_env, dict(facts.environments), page or {}, lang)
