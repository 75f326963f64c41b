"""LangGraph checkpointers: SQLite in the data dir by default, PostgreSQL when the
database URL is PostgreSQL (so several app processes share conversations).

Savers are bound to the event loop that created them (aiosqlite connections and psycopg
pools are loop-bound), so a :class:`SaverPool` (owned by the agent core) keeps one per
running loop and closes them on shutdown. They are LangGraph's own savers, used as they
come.
"""

from __future__ import annotations

import asyncio
import weakref
from pathlib import Path
from typing import Any

import aiosqlite
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from app.settings import Settings


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
        saver = AsyncPostgresSaver(pool)  # type: ignore[arg-type]
        await saver.setup()
        return saver, pool.close, lambda: None  # the pool's workers are tasks of its loop

    saver = await open_sqlite_saver(settings.checkpoint_path)
    conn = saver.conn
    return saver, conn.close, conn.stop  # stop(): ends aiosqlite's (non-daemon) thread


async def open_sqlite_saver(path: Path) -> AsyncSqliteSaver:
    """A SQLite checkpointer on ``path``: WAL with ``synchronous=NORMAL`` like the app's
    own database (a commit survives a crash of the process; only a power loss can undo
    the last ones, never corrupt the file), so a turn waits for no fsync."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = await aiosqlite.connect(str(path), timeout=30)
    await conn.execute("PRAGMA journal_mode=WAL")
    await conn.execute("PRAGMA synchronous=NORMAL")
    await conn.execute("PRAGMA busy_timeout=30000")
    saver = AsyncSqliteSaver(conn)
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
