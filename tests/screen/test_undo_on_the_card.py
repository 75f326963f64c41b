"""The undo offer on the page's model: it arrives typed on ``tool_end`` and becomes the
tool card's Undo (never the answer's choices); a completed undo takes it off the card of
the change it undid; a reopened conversation shows it while it is available (the core
keeps only those); the confirmation card says whether its call can be undone."""

from __future__ import annotations

from app import events as ev
from app.screen.chat_model import AgentChatModel
from app.screen.stream import StreamProcessor
from tests.ui.fakes import FakeClock, FakeConversation

UNDO = ev.Offer(
    kind="undo",
    label="Undo",
    request="Undo: Start maintenance on prod",
    call=ev.OfferedCall(tool_name="undo_change", args={"undo_id": "ab" * 16}),
    expires_at="2026-06-08T12:00:00+00:00",
)


def setup(lang: str = "en") -> tuple[AgentChatModel, StreamProcessor]:
    model = AgentChatModel(lang=lang, clock=FakeClock())
    return model, StreamProcessor(model)


def _write(p: StreamProcessor, call_id: str, tool: str, args: dict, offers: list) -> None:
    p.apply(ev.ToolStartEvent(call_id=call_id, tool_name=tool, tool_args=args, is_write_tool=True))
    p.apply(ev.ToolEndEvent(call_id=call_id, tool_name=tool, status="completed", offers=offers))


def test_a_completed_undoable_write_offers_undo_on_its_card() -> None:
    m, p = setup()
    _write(p, "c1", "start_maintenance", {"env_id": "prod"}, [UNDO])
    p.apply(ev.MessageEvent(text="Prod is in maintenance."))
    card, answer = m.items
    assert card.can_undo and card.undo_offer == UNDO
    assert answer.offers == []  # the card's button, not the answer's


def test_a_failed_write_offers_no_undo() -> None:
    m, p = setup()
    p.apply(ev.ToolStartEvent(call_id="c1", tool_name="start_maintenance", is_write_tool=True))
    p.apply(ev.ToolEndEvent(call_id="c1", tool_name="start_maintenance", status="failed"))
    assert not m.items[0].can_undo


def test_a_completed_undo_takes_the_button_off_the_change_it_undid() -> None:
    m, p = setup()
    _write(p, "c1", "start_maintenance", {"env_id": "prod"}, [UNDO])
    another = ev.OfferedCall(tool_name="undo_change", args={"undo_id": "cd" * 16})
    other = UNDO.model_copy(update={"call": another})
    _write(p, "c2", "create_branch", {"branch": "b"}, [other])
    _write(p, "c3", "undo_change", {"undo_id": "ab" * 16}, [])
    first, second, undo = m.items
    assert not first.can_undo and first.offers == []
    assert second.can_undo  # another change keeps its own
    assert not undo.can_undo


def test_a_reopened_conversation_shows_undo_while_the_core_keeps_it() -> None:
    m, p = setup()
    row = {
        "call_id": "c1", "tool_name": "start_maintenance", "tool_args": {"env_id": "prod"},
        "status": "completed", "is_write_tool": True, "position": 1,
    }  # fmt: skip
    p.restore(FakeConversation(tool_calls=[{**row, "offers": [UNDO.model_dump(mode="json")]}]))
    assert m.items[0].can_undo and m.items[0].undo_offer == UNDO
    p.restore(FakeConversation(tool_calls=[{**row, "offers": []}]))  # expired or undone
    assert not m.items[0].can_undo


def _card(undo: str | None, days: int) -> ev.ConfirmRequiredEvent:
    meta = ev.ConfirmMetadataV2(
        tool_name="deploy_dashboard", risk="write", risk_level="guarded", dangerous=False,
        env_id="prod", env_context="prod", card_state="write_prod", undo=undo, undo_days=days,
    )  # fmt: skip
    return ev.ConfirmRequiredEvent(confirmation_id="x", call_id="c", metadata=meta)


def test_the_confirmation_card_says_whether_it_can_be_undone_in_the_pages_language() -> None:
    for lang, undo, days, line in [
        ("en", "undoable", 7, "Can be undone for 7 days"),
        ("ru", "undoable", 7, "Можно отменить в течение 7 дн."),
        ("en", "final", 0, "This cannot be undone"),
        ("ru", "final", 0, "Это нельзя отменить"),
        ("en", None, 0, ""),  # a read changes nothing: no line
    ]:
        m, p = setup(lang)
        p.apply(_card(undo, days))
        assert m.confirm_undo == line
        m.clear_confirmation()
        assert m.confirm_undo == ""
