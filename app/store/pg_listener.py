"""A PostgreSQL ``LISTEN`` kept open by one task: :class:`PgListener`.

One dedicated connection (``app.store.pg_link``) listens on the given channels and hands
every notification to ``on_note(channel, payload)``, a plain function that must not
block (it schedules work). A broken connection is replaced after ``RECONNECT_S``; a
link that died silently is found by a ``SELECT 1`` every ``keepalive_s``. Notifications
sent while no connection listened are lost: the user of a listener keeps what matters in
rows and looks at them again (``on_connect`` runs after every (re)connection).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Any

import psycopg

from app.errors import CoordinationError
from app.store.pg_link import LINK_ERRORS, connect

log = logging.getLogger("ss_tools.replicas")

RECONNECT_S = 1.0
_LOST: tuple[type[Exception], ...] = (CoordinationError, *LINK_ERRORS)
START_WAIT_S = 6.0  # the first connection (its connect timeout is 5 s)


class PgListener:
    """``LISTEN`` on ``channels`` of ``url`` in a task of the running loop (see module)."""

    def __init__(
        self,
        url: str,
        channels: Sequence[str],
        on_note: Callable[[str, str], None],
        *,
        keepalive_s: float,
        purpose: str,
        on_connect: Callable[[], None] | None = None,
    ) -> None:
        self._url, self._channels = url, tuple(channels)
        self._on_note, self._on_connect = on_note, on_connect
        self._keepalive_s, self._purpose = keepalive_s, purpose
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._failure: BaseException | None = None
        self._outage = False

    @property
    def listening(self) -> bool:
        return self._ready.is_set()

    async def start(self) -> None:
        """The listener running with its ``LISTEN`` in place (idempotent); a
        :class:`CoordinationError` when it could not connect within ``START_WAIT_S`` (it
        keeps trying in the background)."""
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name=f"pg-listen-{self._purpose}")
        if self._ready.is_set():
            return
        ready = asyncio.ensure_future(self._ready.wait())
        try:
            await asyncio.wait(
                {ready, self._task}, timeout=START_WAIT_S, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            ready.cancel()
        if not self._ready.is_set():
            raise CoordinationError(f"{self._purpose}: not listening ({self._failure})")

    async def aclose(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        self._ready.clear()

    async def _run(self) -> None:
        while True:
            try:
                await self._listen()
            except _LOST as exc:
                self._failure = exc
                if not self._outage:  # once per outage, not once a second
                    log.warning("%s: listener lost (%s); reconnecting", self._purpose, exc)
                self._outage = True
            await asyncio.sleep(RECONNECT_S)

    async def _listen(self) -> None:
        conn = await connect(self._url, purpose=self._purpose)
        try:
            for channel in self._channels:
                await conn.execute(f"LISTEN {channel}")
            self._ready.set()
            self._outage = False
            if self._on_connect is not None:
                self._on_connect()
            while True:
                async for note in conn.notifies(timeout=self._keepalive_s):
                    self._on_note(note.channel, note.payload)
                await conn.execute("SELECT 1")  # a silently dead link raises here
        finally:
            self._ready.clear()
            await _close_quietly(conn)


async def _close_quietly(conn: psycopg.AsyncConnection[Any]) -> None:
    try:
        await conn.close()
    except LINK_ERRORS:
        pass  # a broken connection: closing it was all that was left
