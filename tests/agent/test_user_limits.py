"""Per-user limits at the core's one input check (``prepare_*``), whatever the door: the
pace of turns and of direct calls (429 with the wait, audited ``rate_limited``), the slots
of running requests (taken before anything runs, freed however the run ends: done, error,
stop, a consumer that left; a dead replica's slot expires), and what is never limited (a
denial, a Stop; answers are not paced). A fake clock drives every wait."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from app.agent.core import AgentCore, Caller, RequestRefused, prepare_call
from app.agent.core.limits import user_key
from app.agent.core.requests import RateLimited
from app.auth import Principal
from app.store import run_slots
from tests.agent.harness import Harness
from tests.agent.scripted import call, recording_tools

ALICE = Principal(user_id="alice", role="admin")


class FakeClock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def limited(harness: Harness, **settings: Any) -> None:
    """The harness's next cores under these limits (the others off)."""
    limits = {"user_turns_per_minute": 0, "user_calls_per_minute": 0, "user_max_running": 0}
    harness.configure(**{**limits, **settings})


def use(harness: Harness, clock: FakeClock, *script: Any, **options: Any) -> AgentCore:
    """``harness.use`` with the new core's limits on ``clock``."""
    harness.use(*script, **options)
    assert harness.core is not None
    harness.core.limits.clock = clock
    return harness.core


async def refused(attempt: Awaitable[Any]) -> RateLimited:
    with pytest.raises(RateLimited) as caught:
        await attempt
    return caught.value


async def test_turns_beyond_the_pace_are_refused_with_the_wait_and_audited(
    harness: Harness, clock: FakeClock
) -> None:
    limited(harness, user_turns_per_minute=3)
    use(harness, clock, "one", "two", "three", "four")
    for _ in range(3):
        await harness.turn("hello")
    exc = await refused(harness.turn("hello"))
    assert (exc.status, exc.error, exc.retry_after_s) == (429, "rate_limited", 20)
    assert exc.headers == {"Retry-After": "20"} and "3 a minute" in exc.reason
    [row] = harness.audit_rows(kind="rate_limited")
    assert (row["user"], row["channel"], row["decision"]) == ("alice", "page", "deny")
    assert row["args"] == {"limit": "turns_per_minute", "max": 3, "retry_after_s": 20}
    other = await harness.turn("hello", user="bob")  # another user has a pace of their own
    assert other[-1].type == "done"
    clock.now += 20  # one turn's share of the minute came back
    assert (await harness.turn("hello"))[-1].type == "done"


async def test_direct_calls_have_their_own_pace(harness: Harness, clock: FakeClock) -> None:
    limited(harness, user_turns_per_minute=1, user_calls_per_minute=2)
    use(harness, clock, "hi", tools=recording_tools([]))
    await harness.turn("hello")  # the turn's pace is spent; calls are counted apart
    for _ in range(2):
        await harness.call("list_backups", {})
    exc = await refused(harness.call("list_backups", {}))
    assert exc.error == "rate_limited" and exc.retry_after_s == 30 and "tool calls" in exc.reason


async def test_answers_are_not_paced(harness: Harness, clock: FakeClock) -> None:
    limited(harness, user_turns_per_minute=1)
    log: list[Any] = []
    harness.use_deploy(log)
    assert harness.core is not None
    harness.core.limits.clock = clock
    events = await harness.turn("deploy 42 to prod")
    card = next(e for e in events if e.type == "confirm_required")
    answered = await harness.answer(card.confirmation_id, "confirm")
    assert any(e.type == "tool_end" and e.status == "completed" for e in answered) and log
    assert (await refused(harness.turn("again"))).error == "rate_limited"


# ---- the slots of running requests ------------------------------------------------------
class Blocking:
    """``list_backups`` that waits until ``release`` (a read: a Stop cancels it)."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()

    def tools(self) -> dict[str, Any]:
        async def slow(args: Any, deps: Any) -> Any:
            self.started.set()
            await self.release.wait()
            return {"ok": True}

        return {**recording_tools([]), "list_backups": slow}


async def until(condition: Callable[[], bool]) -> None:
    """Wait for ``condition`` (a loaded machine just takes longer)."""
    while not condition():
        await asyncio.sleep(0.01)


def running(harness: Harness) -> int:
    assert harness.core is not None
    return harness.core.limits.running(ALICE)


async def test_a_request_over_the_running_cap_is_refused_and_the_slot_comes_back(
    harness: Harness, clock: FakeClock
) -> None:
    limited(harness, user_max_running=1)
    blocking = Blocking()
    core = use(harness, clock, "hi", tools=blocking.tools())
    first = asyncio.ensure_future(harness.call("list_backups", {}, conv_id="c-1"))
    await blocking.started.wait()
    assert running(harness) == 1
    for attempt in (harness.call("list_backups", {}, conv_id="c-2"), harness.turn("hello")):
        exc = await refused(attempt)
        assert (exc.status, exc.error, exc.retry_after_s) == (429, "too_many_running", 5)
    rows = harness.audit_rows(kind="rate_limited")
    assert len(rows) == 2 and all(r["args"]["limit"] == "running" for r in rows)
    assert harness.audit_rows(kind="tool_filtered", conv_id="c-2") == []  # nothing started
    blocking.release.set()
    await first
    await core.turns().drain()
    assert running(harness) == 0
    assert (await harness.turn("hello"))[-1].type == "done"


async def _stopped(harness: Harness, clock: FakeClock, blocking: Blocking) -> None:
    task = asyncio.ensure_future(harness.call("list_backups", {}, conv_id="c-stop"))
    await blocking.started.wait()
    report = await harness.core.cancel(ALICE, "c-stop")  # type: ignore[union-attr]
    assert report.stopped
    await task


async def _left(harness: Harness, clock: FakeClock, blocking: Blocking) -> None:
    caller = Caller(token=harness.token(), channel="http")
    req = await prepare_call(
        core=harness.core, caller=caller, tool_name="list_backups", arguments={},
        conv_id="c-left", uicontext=None,
    )  # fmt: skip
    events = harness.core.run_call(req)  # type: ignore[union-attr]
    async for ev in events:
        if ev.type == "tool_start":
            await blocking.started.wait()
            break
    await events.aclose()  # type: ignore[attr-defined]  # the page or stream went away


async def _failed(harness: Harness, clock: FakeClock, blocking: Blocking) -> None:
    def broken(messages: Any, bound: Any) -> Any:
        raise RuntimeError("model endpoint down")

    use(harness, clock, broken)
    events = await harness.turn("hello")
    assert events[-1].type == "done"


async def _done(harness: Harness, clock: FakeClock, blocking: Blocking) -> None:
    blocking.release.set()
    await harness.call("list_backups", {}, conv_id="c-done")


@pytest.mark.parametrize(
    "end",
    [
        _done,  # the run ends with its answer
        _failed,  # the model fails: error, then done
        _stopped,  # a person stops it (never limited itself: the cap is full)
        _left,  # the consumer goes away mid-run (a closed page or HTTP stream)
    ],
)
async def test_the_slot_is_freed_however_the_run_ends(
    harness: Harness, clock: FakeClock, end: Callable[..., Awaitable[None]]
) -> None:
    limited(harness, user_max_running=1)
    blocking = Blocking()
    use(harness, clock, "hi", tools=blocking.tools())
    await end(harness, clock, blocking)
    assert harness.core is not None
    await harness.core.turns().drain()
    assert running(harness) == 0


async def test_a_confirm_waits_for_a_slot_and_stays_pending_a_denial_never_waits(
    harness: Harness, clock: FakeClock
) -> None:
    limited(harness, user_max_running=1)
    blocking = Blocking()
    deploy = call("deploy_dashboard", dashboard_id="42", target_env="prod")
    core = use(harness, clock, deploy, deploy, "denied", "deployed", tools=blocking.tools())
    cards = []
    for conv in ("c-a", "c-b"):
        events = await harness.turn("deploy 42 to prod", conv_id=conv)
        cards.append(next(e for e in events if e.type == "confirm_required").confirmation_id)
    busy = asyncio.ensure_future(harness.call("list_backups", {}, conv_id="c-busy"))
    await blocking.started.wait()
    exc = await refused(harness.answer(cards[0], "confirm", conv_id="c-a"))
    assert exc.error == "too_many_running"
    assert harness.audit_rows(kind="confirmed") == []  # the confirmation was not spent
    denied = await harness.answer(cards[1], "deny", conv_id="c-b")
    assert any(e.type == "tool_end" and e.status == "cancelled" for e in denied)
    blocking.release.set()
    await busy
    await core.turns().drain()
    confirmed = await harness.answer(cards[0], "confirm", conv_id="c-a")  # still pending
    assert any(e.type == "tool_end" and e.status == "completed" for e in confirmed)


async def test_a_dead_replicas_slot_frees_itself_when_its_lease_expires(
    harness: Harness, clock: FakeClock
) -> None:
    limited(harness, user_max_running=1, run_slot_ttl_s=60)
    use(harness, clock, "hi")
    with harness.parts.db.session() as s:  # a run on a replica that then died
        run_slots.acquire(
            s, user_key=user_key("alice"), limit=1, lease=uuid.uuid4().hex, holder="dead",
            conv_id="gone", now=clock(), ttl_s=60,
        )  # fmt: skip
    assert (await refused(harness.turn("hello"))).error == "too_many_running"
    clock.now += 61  # no renewal came
    assert (await harness.turn("hello"))[-1].type == "done"


async def test_a_running_requests_lease_is_renewed_while_it_goes(
    harness: Harness, clock: FakeClock
) -> None:
    limited(harness, user_max_running=1, run_slot_ttl_s=60)
    blocking = Blocking()
    core = use(harness, clock, "hi", tools=blocking.tools())
    beats: asyncio.Queue[asyncio.Event] = asyncio.Queue()

    async def sleep(_s: float) -> None:  # a renewal happens each time the test says so
        tick = asyncio.Event()
        await beats.put(tick)
        await tick.wait()

    core.limits.sleep = sleep
    task = asyncio.ensure_future(harness.call("list_backups", {}, conv_id="c-long"))
    await blocking.started.wait()
    clock.now += 50
    (await beats.get()).set()  # the lease is renewed at now + 60
    await beats.get()  # ... and the beat sleeps again
    clock.now += 50  # 100 s after the start: beyond the first lease, within the renewed one
    assert running(harness) == 1
    exc = await refused(harness.turn("hello"))
    assert exc.error == "too_many_running"
    blocking.release.set()
    await task


async def test_an_unreadable_limits_table_refuses_rather_than_run_unlimited(
    harness: Harness, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    limited(harness, user_max_running=1)
    core = use(harness, clock, "hi")

    def down(*_a: Any, **_k: Any) -> Any:
        raise OperationalError("SELECT", {}, Exception("database is locked"))

    monkeypatch.setattr(core.limits, "_admit", down)
    with pytest.raises(RequestRefused) as caught:
        await harness.turn("hello")
    assert (caught.value.status, caught.value.error) == (503, "coordination_unavailable")
