"""Two replicas' stop signals as the run-signal tests drive them: a :class:`Replica` (its
engine, its signals, the stops it was asked, a ``hold`` on its answer), the writes its
runs report (``WRITES``), a fresh conversation id, a look at a run's row and a way to age
its heartbeat. The ``pair`` and ``slow_polls`` fixtures are in this folder's conftest."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta
from typing import Any

from sqlalchemy import update

from app.store.db import Database
from app.store.models import RunSignal, utcnow
from app.store.run_signals_pg import PgRunSignals

WRITES = [{"call_id": "call-7", "tool_name": "deploy_dashboard"}]


def conv() -> str:
    return f"conv-{uuid.uuid4().hex[:8]}"


class Replica:
    """One replica's side: its database engine, its signals and the stops it was asked."""

    def __init__(self, url: str, name: str, **options: Any) -> None:
        self.db = Database.open(url)
        self.signals = PgRunSignals(self.db, replica=f"test:{name}", **options)
        self.stops: list[str] = []
        self.hold: asyncio.Event | None = None  # set: on_stop waits for it

    async def on_stop(self, conv_id: str) -> list[dict[str, str]]:
        self.stops.append(conv_id)
        if self.hold is not None:
            await self.hold.wait()
        return WRITES

    async def close(self) -> None:
        await self.signals.aclose()
        self.db.dispose()


def row(db: Database, conv_id: str) -> RunSignal | None:
    with db.session() as s:
        return s.get(RunSignal, conv_id)


def age(db: Database, conv_id: str, **ago: float) -> None:
    """Set the row's heartbeat back (``minutes=5``): as if its replica had not beaten."""
    with db.session() as s:
        s.execute(
            update(RunSignal)
            .where(RunSignal.conv_id == conv_id)  # type: ignore[arg-type]
            .values(heartbeat_at=utcnow() - timedelta(**ago))
        )
