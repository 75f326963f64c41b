"""LangGraph checkpointers: SQLite in the data dir by default, PostgreSQL when the
database URL is PostgreSQL (so several app processes share conversations).

Savers are bound to the event loop that created them (aiosqlite connections and psycopg
pools are loop-bound), so they are cached per running loop and closed on shutdown.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from app.settings import Settings, get_settings

_SAVERS: dict[int, tuple[BaseCheckpointSaver, Any]] = {}
_LOCKS: dict[int, asyncio.Lock] = {}


def _pg_conninfo(url: str) -> str:
    """SQLAlchemy URL -> libpq URL (drop the +driver part)."""
    _scheme, rest = url.split("://", 1)
    return "postgresql://" + rest


async def _open_saver(settings: Settings) -> tuple[BaseCheckpointSaver, Any]:
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
        return saver, pool.close

    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    path = settings.checkpoint_path
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = await aiosqlite.connect(str(path), timeout=30)
    await conn.execute("PRAGMA journal_mode=WAL")
    await conn.execute("PRAGMA busy_timeout=30000")
    saver = AsyncSqliteSaver(conn)
    await saver.setup()
    return saver, conn.close


async def get_checkpointer() -> BaseCheckpointSaver:
    loop = asyncio.get_running_loop()
    key = id(loop)
    if key in _SAVERS:
        return _SAVERS[key][0]
    lock = _LOCKS.setdefault(key, asyncio.Lock())
    async with lock:
        if key not in _SAVERS:
            _SAVERS[key] = await _open_saver(get_settings())
    return _SAVERS[key][0]


async def close_checkpointers() -> None:
    """Close the saver of the running loop (app shutdown / test teardown)."""
    key = id(asyncio.get_running_loop())
    entry = _SAVERS.pop(key, None)
    _LOCKS.pop(key, None)
    if entry is not None:
        await entry[1]()


def forget_checkpointers() -> None:
    """Drop every cached saver without closing (their loops are gone)."""
    _SAVERS.clear()
    _LOCKS.clear()
