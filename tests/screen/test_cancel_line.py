"""After a Cancel the chat says the product's own "Operation cancelled" («Операция
отменена»), whatever the model says; a reload says it where the live turn did. A call a
stop cancelled is not a Cancel: no such line."""

from __future__ import annotations

import pytest

from app.facts import Refusal
from app.screen.chat_model import AgentChatModel
from app.screen.items import ChatMessage, ToolCall
from app.screen.restore import denied_on_its_card
from app.screen.stream import StreamProcessor
from app.vocab import STOPPED_REASON
from tests.ui.fakes import FakeClock, FakeConversation


def _cancelled_row(reason: str | None, status: str = "cancelled") -> dict:
    text = Refusal(
        code="cancelled",
        tool_name="delete_dashboard",
        message="cancelled by the user" + (f": {reason}" if reason else ""),
        env_id="dev",
        reason=reason,
    ).tool_result()
    return {"call_id": "c1", "tool_name": "delete_dashboard", "status": status,
            "result": text, "position": 1}  # fmt: skip


@pytest.mark.parametrize(
    ("row", "denied"),
    [
        (_cancelled_row("wrong one"), True),  # Cancel with a reason
        (_cancelled_row(None), True),  # Cancel without one
        (_cancelled_row(STOPPED_REASON), False),  # a stop cancelled it, not the person's Cancel
        ({**_cancelled_row(None), "status": "completed"}, False),  # it ran
        ({"call_id": "c1", "status": "cancelled", "result": "garbage"}, False),  # unreadable
    ],
)
def test_which_restored_calls_were_cancelled_on_their_card(row: dict, denied: bool) -> None:
    assert denied_on_its_card(row) is denied


@pytest.mark.parametrize(
    ("lang", "reason", "line"),
    [
        ("en", "wrong one", ["Operation cancelled"]),  # said after the card, as live
        ("ru", None, ["Операция отменена"]),  # in the page's language
        ("en", STOPPED_REASON, []),  # a stop's cancelled call: no Cancel line
    ],
)
def test_a_reload_says_the_cancel_line_after_the_card(lang, reason, line) -> None:
    model = AgentChatModel(lang=lang, clock=FakeClock())
    StreamProcessor(model).restore(
        FakeConversation(
            messages=[
                {"role": "user", "text": "delete dashboard 2", "position": 0},
                {"role": "assistant", "text": "Cancelled — not deleting it.", "position": 2},
            ],
            tool_calls=[_cancelled_row(reason)],
        )
    )
    kinds = [type(i).__name__ for i in model.items]
    said = [i.text for i in model.items if isinstance(i, ChatMessage)]
    assert said == ["delete dashboard 2", *line, "Cancelled — not deleting it."]
    assert kinds.index("ToolCall") == 1  # the card, then the line (when there is one)
    assert [i.status for i in model.items if isinstance(i, ToolCall)] == ["cancelled"]
