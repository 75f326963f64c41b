"""LangGraph checkpointers: SQLite in the data dir by default, PostgreSQL when the
database URL is PostgreSQL (so several app processes share conversations).

Savers are bound to the event loop that created them (aiosqlite connections and psycopg
pools are loop-bound), so a :class:`SaverPool` (owned by the agent core) keeps one per
running loop and closes them on shutdown.

A turn reads its conversation's checkpoint before the run (the owner, a confirmation
waiting: :func:`read_before_run`); the run's own first read, right after, is that same
checkpoint, so the savers here hand it over instead of reading it again (one read, and
its waits on the database thread, fewer per turn). The handover is one-shot, scoped to
the turn's task (a context variable), for that conversation's latest checkpoint only,
and dropped by any write to it; any other saver (a test's ``InMemorySaver``) reads twice.
"""

from __future__ import annotations

import asyncio
import weakref
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiosqlite
from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from app.settings import Settings


@dataclass
class _Handover:
    """A checkpoint read before a run, for the run's own first read (once)."""

    thread_id: str
    saved: CheckpointTuple | None = None
    primed: bool = field(default=False)


_HANDOVER: ContextVar[_Handover | None] = ContextVar("ss_tools_checkpoint_handover", default=None)


def _thread(config: Any) -> str | None:
    conf = (config or {}).get("configurable") or {}
    if conf.get("checkpoint_id") or conf.get("checkpoint_ns"):
        return None  # a given checkpoint or a subgraph's: never handed over
    return conf.get("thread_id")


class HandsOver:
    """Mixed into a saver: its first ``aget_tuple`` of a thread's latest checkpoint in a
    task where :func:`read_before_run` just read it returns that read."""

    async def aget_tuple(self, config: Any) -> CheckpointTuple | None:
        box = _HANDOVER.get()
        if box is not None and box.primed and _thread(config) == box.thread_id:
            box.primed = False
            return box.saved
        return await super().aget_tuple(config)  # type: ignore[misc]  # the saver's own

    async def aput(self, config: Any, *args: Any, **kwargs: Any) -> Any:
        _drop(config)
        return await super().aput(config, *args, **kwargs)  # type: ignore[misc]

    async def aput_writes(self, config: Any, *args: Any, **kwargs: Any) -> Any:
        _drop(config)
        return await super().aput_writes(config, *args, **kwargs)  # type: ignore[misc]


def _drop(config: Any) -> None:
    box = _HANDOVER.get()
    if box is not None and (config.get("configurable") or {}).get("thread_id") == box.thread_id:
        box.primed = False


class SqliteSaver(HandsOver, AsyncSqliteSaver):
    """The SQLite checkpointer, handing a turn's read over to its run."""


class PostgresSaver(HandsOver, AsyncPostgresSaver):
    """The PostgreSQL checkpointer, handing a turn's read over to its run."""


@dataclass(frozen=True)
class Latest:
    """A conversation's latest checkpoint as a turn reads it (no confirmation waits)."""

    values: dict[str, Any]
    interrupts: tuple[Any, ...] = ()


async def read_before_run(graph: Any, config: dict[str, Any]) -> Any:
    """The conversation's state before a turn's run (``.values``, ``.interrupts``). With a
    :class:`HandsOver` saver the checkpoint read is handed to the run that follows; when
    writes are pending on it (a confirmation waits), LangGraph's full snapshot instead."""
    thread = _thread(config)
    saver = graph.checkpointer
    box = _Handover(thread) if thread is not None else None
    _HANDOVER.set(box)  # a new turn: nothing an earlier one read is handed over
    if box is None or not isinstance(saver, HandsOver):
        return await graph.aget_state(config)
    saved = await saver.aget_tuple(config)
    if saved is not None and saved.pending_writes:
        return await graph.aget_state(config)
    box.saved, box.primed = saved, True
    return Latest(values=dict(saved.checkpoint["channel_values"]) if saved else {})


def _pg_conninfo(url: str) -> str:
    """SQLAlchemy URL -> libpq URL (drop the +driver part)."""
    _scheme, rest = url.split("://", 1)
    return "postgresql://" + rest


async def _open_saver(settings: Settings) -> tuple[BaseCheckpointSaver, Any, Any]:
    saver: BaseCheckpointSaver
    if settings.is_postgres:
        pool = AsyncConnectionPool(
            _pg_conninfo(settings.db_url),
            min_size=1,
            max_size=10,
            open=False,
            kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        )
        await pool.open()
        saver = PostgresSaver(pool)  # type: ignore[arg-type]
        await saver.setup()
        return saver, pool.close, lambda: None  # the pool's workers are tasks of its loop

    saver = await open_sqlite_saver(settings.checkpoint_path)
    conn = saver.conn
    return saver, conn.close, conn.stop  # stop(): ends aiosqlite's (non-daemon) thread


async def open_sqlite_saver(path: Path) -> SqliteSaver:
    """A SQLite checkpointer on ``path``: WAL with ``synchronous=NORMAL`` like the app's
    own database (a commit survives a crash of the process; only a power loss can undo
    the last ones, never corrupt the file), so a turn waits for no fsync."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = await aiosqlite.connect(str(path), timeout=30)
    await conn.execute("PRAGMA journal_mode=WAL")
    await conn.execute("PRAGMA synchronous=NORMAL")
    await conn.execute("PRAGMA busy_timeout=30000")
    saver = SqliteSaver(conn)
    await saver.setup()
    return saver


class SaverPool:
    """One checkpointer per running event loop, opened on first use (the agent core owns
    one pool). ``aclose()`` closes the running loop's saver (app shutdown, test teardown);
    ``stop()`` ends every saver's worker thread without a loop (a replaced core, the end of
    a test session) and forgets them, so the pool opens fresh ones if used again."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        # id(loop) -> (weak ref to that loop, saver, async closer, sync stopper). The weak
        # ref guards against a new loop reusing a dead loop's id.
        self._savers: dict[int, tuple[Any, BaseCheckpointSaver, Any, Any]] = {}
        self._locks: dict[int, asyncio.Lock] = {}

    async def get(self) -> BaseCheckpointSaver:
        loop = asyncio.get_running_loop()
        key = id(loop)
        entry = self._savers.get(key)
        if entry is not None and entry[0]() is loop:
            return entry[1]
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            entry = self._savers.get(key)
            if entry is None or entry[0]() is not loop:
                if entry is not None:  # a dead loop's saver under a reused id
                    entry[3]()
                saver, closer, stopper = await _open_saver(self._settings)
                self._savers[key] = (weakref.ref(loop), saver, closer, stopper)
        return self._savers[key][1]

    async def aclose(self) -> None:
        """Close the saver of the running loop."""
        key = id(asyncio.get_running_loop())
        entry = self._savers.pop(key, None)
        self._locks.pop(key, None)
        if entry is not None:
            await entry[2]()

    def stop(self) -> None:
        """Stop every saver's worker thread (no loop needed): otherwise aiosqlite's
        non-daemon threads keep the process alive."""
        for entry in list(self._savers.values()):
            entry[3]()
        self._savers.clear()
        self._locks.clear()
