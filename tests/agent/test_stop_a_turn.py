"""Stop a turn: a read in flight is cancelled; a write in flight goes on and its
outcome lands in the conversation; the checkpoint stays consistent and the next message
works; a pending confirmation is withdrawn with an audit row; only the owner may stop."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from app.agent.core import ConfirmationRefused, RequestRefused
from app.agent.core.conversations import run_config
from app.auth import Principal
from app.events import (
    ConfirmRequiredEvent,
    DoneEvent,
    MessageEvent,
    StoppedEvent,
    ToolEndEvent,
    ToolStartEvent,
)
from app.facts import read_refusal
from tests.agent.scripted import call, final_from_tool
from tests.waiting import WAIT_S

ALICE = Principal(user_id="alice", role="admin")


class Blocking:
    """Tool implementations that wait until the test releases them."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.ran: list[str] = []
        self.finished: list[str] = []

    def tool(self, name: str) -> Any:
        async def run(args: Any, deps: Any) -> Any:
            self.ran.append(name)
            await self.release.wait()
            self.finished.append(name)
            return {"tool": name, "ok": True}

        return run


class Stream:
    """A turn's events collected in the background, as the page consumes them."""

    def __init__(self, events: Any) -> None:
        self.events: list[Any] = []
        self.task = asyncio.ensure_future(self._consume(events))

    async def _consume(self, events: Any) -> None:
        async for ev in events:
            self.events.append(ev)

    async def wait_for(self, kind: type, timeout: float = WAIT_S) -> Any:
        async def seen() -> Any:
            while not any(isinstance(e, kind) for e in self.events):
                await asyncio.sleep(0.01)
            return next(e for e in self.events if isinstance(e, kind))

        return await asyncio.wait_for(seen(), timeout)

    async def done(self, timeout: float = WAIT_S) -> list[Any]:
        await asyncio.wait_for(self.task, timeout)
        return self.events


async def _start(harness: Any, message: str, conv_id: str) -> Stream:
    return Stream(harness.core.run_turn(await harness.turn_request(message, conv_id=conv_id)))


async def _consistent(harness: Any) -> list[Any]:
    """The checkpoint's messages; every tool call has its result, nothing is pending."""
    state = await (await harness.core.graph()).aget_state(run_config(harness.conv_id))
    messages = state.values["messages"]
    calls = {tc["id"] for m in messages if isinstance(m, AIMessage) for tc in m.tool_calls}
    results = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    assert calls == results and state.next == () and not state.interrupts
    return messages


async def _confirmed_write_running(
    harness: Any,
    conv_id: str,
    proposal: AIMessage | None = None,
    answer: str = "Next answer.",
    message: str = "deploy 42 to staging",
) -> tuple[ConfirmRequiredEvent, Blocking, Stream]:
    """The model proposes the write ``proposal`` (by default a deploy of dashboard 42 to
    staging) for ``message`` (then says ``answer``); its card is confirmed on the page's
    path and the write's tool, which blocks until the test releases it, has started. The
    card, the tools and the resume's stream."""
    proposal = proposal or call("deploy_dashboard", dashboard_id="42", target_env="staging")
    tools = Blocking()
    name = proposal.tool_calls[0]["name"]
    harness.use(proposal, answer, tools={name: tools.tool(name)})
    conf = next(
        e
        for e in await harness.turn(message, conv_id=conv_id)
        if isinstance(e, ConfirmRequiredEvent)
    )
    stream = Stream(harness.core.resume(await harness.resume_request(conf.confirmation_id)))
    await stream.wait_for(ToolStartEvent)
    return conf, tools, stream


async def test_a_stop_cancels_a_read_in_flight_and_the_next_message_works(harness: Any) -> None:
    tools = Blocking()
    rec = harness.use(
        call("search_dashboards", query="sales"),
        "Hello again.",
        tools={"search_dashboards": tools.tool("search_dashboards")},
    )
    stream = await _start(harness, "find sales", "stop-read")
    await stream.wait_for(ToolStartEvent)
    report = await harness.core.cancel(ALICE, "stop-read")
    assert report.stopped and report.writes_in_flight == []
    events = await stream.done()
    stopped = next(e for e in events if isinstance(e, StoppedEvent))
    assert stopped.writes_in_flight == []
    end = next(e for e in events if isinstance(e, ToolEndEvent))
    assert end.status == "cancelled" and "stopped" in end.result
    assert next(e for e in events if isinstance(e, MessageEvent)).text == "Stopped."
    assert isinstance(events[-1], DoneEvent) and events[-1].state == "idle"
    assert tools.finished == []
    messages = await _consistent(harness)
    refusal = read_refusal(messages[-2].content)
    assert refusal is not None and refusal.code == "cancelled"
    assert harness.audit_rows(kind="turn_stopped", conv_id="stop-read")
    assert harness.audit_rows(kind="cancelled", conv_id="stop-read", tool="search_dashboards")
    # the next message runs on the consistent checkpoint
    nxt = await harness.turn("hello", conv_id="stop-read")
    assert next(e for e in nxt if isinstance(e, MessageEvent)).text == "Hello again."
    assert len(rec.seen) == 2  # the model was not asked again in the stopped turn


async def test_a_write_in_flight_goes_on_after_a_stop_and_its_outcome_lands(
    harness: Any,
) -> None:
    # (the stopped run does not ask the model again for its "Next answer.")
    conf, tools, stream = await _confirmed_write_running(harness, "stop-write")
    report = await harness.core.cancel(ALICE, "stop-write")
    assert report.writes_in_flight == [{"call_id": conf.call_id, "tool_name": "deploy_dashboard"}]
    events = await stream.done()  # the stream answers at once …
    assert next(e for e in events if isinstance(e, StoppedEvent)).writes_in_flight == [conf.call_id]
    assert isinstance(events[-1], DoneEvent) and tools.finished == []
    follower = Stream(harness.core.follow(ALICE, "stop-write"))
    tools.release.set()  # … and the write runs to its end
    landed = await follower.done()
    assert [(e.call_id, e.status) for e in landed if isinstance(e, ToolEndEvent)] == [
        (conf.call_id, "completed")
    ]
    assert tools.finished == ["deploy_dashboard"]
    nxt = await harness.turn("and now?", conv_id="stop-write")
    assert next(e for e in nxt if isinstance(e, MessageEvent)).text == "Next answer."
    messages = await _consistent(harness)
    results = [m for m in messages if isinstance(m, ToolMessage)]
    assert '"ok": true' in results[0].content  # the write's outcome is in the conversation
    view = await harness.core.conversation(ALICE, "stop-write")
    assert view.tool_calls[0]["status"] == "completed"


async def test_a_message_sent_while_a_stopped_write_runs_waits_for_it(harness: Any) -> None:
    _, tools, stream = await _confirmed_write_running(
        harness, "stop-wait", call("run_backup", env_id="dev"), "After the backup.", "back up dev"
    )
    await harness.core.cancel(ALICE, "stop-wait")
    await stream.done()
    nxt = await _start(harness, "status?", "stop-wait")
    await asyncio.sleep(0.2)
    assert not any(isinstance(e, MessageEvent) for e in nxt.events)  # waiting for the write
    tools.release.set()
    events = await nxt.done()
    assert next(e for e in events if isinstance(e, MessageEvent)).text == "After the backup."
    await _consistent(harness)


async def test_a_stop_withdraws_a_pending_confirmation_with_an_audit_row(harness: Any) -> None:
    harness.use(
        call("delete_dashboard", dashboard_id="7", env_id="dev"),
        final_from_tool,
        tools={},
    )
    events = await harness.turn("delete 7", conv_id="stop-pending")
    conf = next(e for e in events if isinstance(e, ConfirmRequiredEvent))
    report = await harness.core.cancel(ALICE, "stop-pending")
    assert report.withdrawn == conf.confirmation_id and not report.stopped
    await harness.core.turns().drain()
    rows = harness.audit_rows(kind="cancelled", conv_id="stop-pending")
    assert any("withdrawn" in (r["reason"] or "") for r in rows)
    view = await harness.core.conversation(ALICE, "stop-pending")
    assert view.pending is None and view.tool_calls[0]["status"] == "cancelled"
    with pytest.raises(ConfirmationRefused):
        await harness.answer(conf.confirmation_id, "deny")
    await _consistent(harness)


async def test_only_the_owner_may_stop_a_conversation(harness: Any) -> None:
    harness.use("Hello.")
    await harness.turn("hi", conv_id="stop-owner")
    with pytest.raises(RequestRefused) as caught:
        await harness.core.cancel(Principal("mallory", "admin"), "stop-owner")
    assert caught.value.status == 403
    with pytest.raises(RequestRefused) as missing:
        await harness.core.cancel(ALICE, "no-such-conversation")
    assert missing.value.status == 404
    nothing = await harness.core.cancel(ALICE, "stop-owner")
    assert not nothing.stopped and nothing.withdrawn is None
