"""LangGraph checkpointers: SQLite in the data dir by default, PostgreSQL when the
database URL is PostgreSQL (so several app processes share conversations).

Savers are bound to the event loop that created them (aiosqlite connections and psycopg
pools are loop-bound), so they are cached per running loop and closed on shutdown.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from app.settings import Settings, get_settings

# id(loop) -> (weak ref to that loop, saver, async closer, sync stopper). The weak ref
# guards against a new loop reusing a dead loop's id.
_SAVERS: dict[int, tuple[Any, BaseCheckpointSaver, Any, Any]] = {}
_LOCKS: dict[int, asyncio.Lock] = {}


def _pg_conninfo(url: str) -> str:
    """SQLAlchemy URL -> libpq URL (drop the +driver part)."""
    _scheme, rest = url.split("://", 1)
    return "postgresql://" + rest


async def _open_saver(settings: Settings) -> tuple[BaseCheckpointSaver, Any, Any]:
    if settings.is_postgres:
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from psycopg.rows import dict_row
        from psycopg_pool import AsyncConnectionPool

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

    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    path = settings.checkpoint_path
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = await aiosqlite.connect(str(path), timeout=30)
    await conn.execute("PRAGMA journal_mode=WAL")
    await conn.execute("PRAGMA busy_timeout=30000")
    saver = AsyncSqliteSaver(conn)
    await saver.setup()
    return saver, conn.close, conn.stop  # stop(): ends aiosqlite's (non-daemon) thread


async def get_checkpointer() -> BaseCheckpointSaver:
    loop = asyncio.get_running_loop()
    key = id(loop)
    entry = _SAVERS.get(key)
    if entry is not None and entry[0]() is loop:
        return entry[1]
    lock = _LOCKS.setdefault(key, asyncio.Lock())
    async with lock:
        entry = _SAVERS.get(key)
        if entry is None or entry[0]() is not loop:
            if entry is not None:  # a dead loop's saver under a reused id
                entry[3]()
            saver, closer, stopper = await _open_saver(get_settings())
            _SAVERS[key] = (weakref.ref(loop), saver, closer, stopper)
    return _SAVERS[key][1]


async def close_checkpointers() -> None:
    """Close the saver of the running loop (app shutdown / test teardown)."""
    key = id(asyncio.get_running_loop())
    entry = _SAVERS.pop(key, None)
    _LOCKS.pop(key, None)
    if entry is not None:
        await entry[2]()


def stop_checkpointers() -> None:
    """Stop every cached saver's worker thread without a loop (end of a test session, whose
    loops are gone): otherwise aiosqlite's non-daemon threads keep the process alive."""
    for entry in list(_SAVERS.values()):
        entry[3]()
    _SAVERS.clear()
    _LOCKS.clear()
