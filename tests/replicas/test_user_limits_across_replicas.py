"""Per-user limits hold across replicas (two app cores on one PostgreSQL database, in one
process): a user's pace is one bucket whichever replica a request reaches, a run on one
replica holds a slot the other sees, and the slot of a replica that stopped renewing its
lease (it died) frees itself; its late release cannot free the new holder's slot."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from app.agent.core.requests import RateLimited
from app.auth import Principal
from app.parts import Parts
from tests.agent.harness import Harness
from tests.agent.test_user_limits import Blocking, FakeClock

LIMITS = {"user_turns_per_minute": 3, "user_calls_per_minute": 0, "user_max_running": 1}


@pytest.fixture
async def replicas(
    pg_db_url: str, make_parts: Callable[..., Parts]
) -> AsyncIterator[tuple[Harness, Harness, FakeClock]]:
    """Two replicas' harnesses on the module's PostgreSQL database, one fake clock."""
    clock = FakeClock()
    pair = [Harness(make_parts(database_url=pg_db_url, **LIMITS)) for _ in range(2)]
    yield pair[0], pair[1], clock
    for h in pair:
        if h.core is not None:
            await h.core.aclose()
            h.core.stop()


def serve(h: Harness, clock: FakeClock, *script: Any, tools: Any = None) -> None:
    h.use(*script, tools=tools, checkpointer=InMemorySaver())
    assert h.core is not None
    h.core.limits.clock = clock


async def test_one_users_pace_is_one_bucket_on_both_replicas(replicas: Any) -> None:
    a, b, clock = replicas
    serve(a, clock, "a1", "a2")
    serve(b, clock, "b1", "b2")
    user = f"pace-{uuid.uuid4().hex[:6]}"
    for h in (a, b, a):
        assert (await h.turn("hi", user=user))[-1].type == "done"
    with pytest.raises(RateLimited) as caught:
        await b.turn("hi", user=user)
    assert caught.value.error == "rate_limited" and caught.value.retry_after_s == 20


async def test_a_run_on_one_replica_holds_the_slot_the_other_sees(replicas: Any) -> None:
    a, b, clock = replicas
    blocking = Blocking()
    serve(a, clock, tools=blocking.tools())
    serve(b, clock, "hi")
    user = f"slot-{uuid.uuid4().hex[:6]}"
    task = asyncio.ensure_future(a.call("list_backups", {}, user=user, conv_id="on-a"))
    await blocking.started.wait()
    with pytest.raises(RateLimited) as caught:
        await b.turn("hi", user=user)
    assert caught.value.error == "too_many_running"
    blocking.release.set()
    await task
    assert (await b.turn("hi", user=user))[-1].type == "done"


def _renewing(task: asyncio.Task[Any]) -> bool:
    """A task renewing a run's slot lease (``UserLimits._beat``)."""
    return getattr(task.get_coro(), "__qualname__", "") == "UserLimits._beat"


async def test_a_dead_replicas_slot_is_taken_over_and_its_late_release_frees_nothing(
    replicas: Any,
) -> None:
    a, b, clock = replicas
    blocking = Blocking()
    serve(a, clock, tools=blocking.tools())
    stuck = Blocking()
    serve(b, clock, tools=stuck.tools())
    user = f"dead-{uuid.uuid4().hex[:6]}"
    assert a.core is not None and b.core is not None
    dying = asyncio.ensure_future(a.call("list_backups", {}, user=user, conv_id="on-a"))
    await blocking.started.wait()
    [beat] = [t for t in asyncio.all_tasks() if _renewing(t)]
    beat.cancel()  # replica A stops renewing: it hangs, or its host died
    clock.now += a.core.settings.run_slot_ttl_s + 1
    taken = asyncio.ensure_future(b.call("list_backups", {}, user=user, conv_id="on-b"))
    await stuck.started.wait()  # B took the expired slot over
    blocking.release.set()
    await dying  # A's run ends late: its release names its own lease, not B's
    await a.core.turns().drain()
    assert b.core.limits.running(Principal(user_id=user, role="admin")) == 1
    stuck.release.set()
    await taken
