"""The ``run_signal`` rows: a running turn as the other replicas see it (data functions,
keyword-only, taking a session; the async service is :mod:`app.store.run_signals`).

A row's life: :func:`record_start` (the run begins; any leftover row of the conversation,
from a dead replica, is replaced) → :func:`beat` (the replica's heartbeat, all its rows at
once) → maybe :func:`request_stop` (another replica asks) → :func:`record_stopped` (the
running replica's answer) → :func:`record_finish` (the run ended: deleted; an asker still
waiting is told whether the run had been stopped or ended on its own).

A row is *live* while its heartbeat is fresh, or while its conversation's run lock is
held (:func:`lock_held`): a replica too busy to beat in time still runs the turn, and its
lock (a session-level advisory lock) is freed only when the run ends or the replica dies.

On PostgreSQL the functions that change what another replica waits for also send its
``NOTIFY`` in the same transaction (:func:`notify`): it is delivered when, and only if,
the row change commits.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, text, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlmodel import Session, col, select

from app.store.models import RunSignal
from app.store.rows import changed, moment_of
from app.store.run_locks import lock_key

#: NOTIFY channels: a stop asked (payload: conv_id, run_id, replica); a stop answered or a
#: run that ended while one was asked (payload: conv_id, run_id, and the answer).
STOP_CHANNEL = "ss_tools_run_stop"
ANSWER_CHANNEL = "ss_tools_run_answer"
MAX_PAYLOAD = 7900  # PostgreSQL refuses a NOTIFY payload of 8000 bytes or more


def notify(session: Session, *, channel: str, payload: dict[str, Any]) -> None:
    """``pg_notify(channel, payload)`` in the session's transaction (PostgreSQL only; a
    no-op elsewhere). A payload too long for NOTIFY is sent without its ``writes`` (the
    listener then reads the row)."""
    if session.get_bind().dialect.name != "postgresql":
        return
    body = json.dumps(payload, separators=(",", ":"))
    if len(body.encode()) > MAX_PAYLOAD:
        body = json.dumps({**payload, "writes": None, "truncated": True})
    session.execute(text("SELECT pg_notify(:c, :p)"), {"c": channel, "p": body})


def record_start(
    session: Session,
    *,
    conv_id: str,
    run_id: str,
    replica: str,
    user_id: str | None,
    now: datetime | None = None,
) -> RunSignal:
    """The run ``run_id`` of ``conv_id`` begins on ``replica``: its row, replacing any
    other (a dead replica's leftover, or one a heartbeat wrote again at the same moment:
    one ``INSERT … ON CONFLICT`` on PostgreSQL, so neither fails the other)."""
    at = moment_of(now)
    values: dict[str, Any] = {
        "conv_id": conv_id,
        "run_id": run_id,
        "replica": replica,
        "user_id": user_id,
        "started_at": at,
        "heartbeat_at": at,
        "stop_requested_at": None,
        "stop_requested_by": None,
        "stopped_at": None,
        "writes_in_flight": None,
    }
    if session.get_bind().dialect.name == "postgresql":
        stmt = pg_insert(RunSignal).values(**values)
        fresh = {k: stmt.excluded[k] for k in values if k != "conv_id"}
        session.execute(stmt.on_conflict_do_update(index_elements=["conv_id"], set_=fresh))
        row = session.get(RunSignal, conv_id, populate_existing=True)
        assert row is not None  # just written, in this transaction
        return row
    row = session.get(RunSignal, conv_id) or RunSignal(conv_id=conv_id, replica=replica)
    for key, value in values.items():
        setattr(row, key, value)
    session.add(row)
    session.flush()
    return row


def beat(
    session: Session,
    *,
    replica: str,
    runs: dict[str, tuple[str, str | None]],
    now: datetime | None = None,
) -> list[str]:
    """The heartbeat of ``replica``'s runs (``runs``: conv_id -> (run_id, user_id)): their
    rows' ``heartbeat_at``; a row deleted meanwhile as stale (the replica was too slow to
    beat) is written again, unless the conversation has another run now. A row of
    ``replica`` that is not among ``runs`` (its deletion failed) is left to go stale.
    Returns the conversations whose rows were written again."""
    at = moment_of(now)
    stmt = (
        update(RunSignal)
        .where(col(RunSignal.replica) == replica, col(RunSignal.conv_id).in_(runs))
        .values(heartbeat_at=at)
        .execution_options(synchronize_session=False)
    )
    if changed(session.execute(stmt)) >= len(runs):
        return []
    present = set(session.exec(select(RunSignal.conv_id).where(col(RunSignal.conv_id).in_(runs))))
    written: list[str] = []
    for conv_id in sorted(runs.keys() - present):
        run_id, user_id = runs[conv_id]
        values: dict[str, Any] = {"conv_id": conv_id, "run_id": run_id, "replica": replica}
        values |= {"user_id": user_id, "started_at": at, "heartbeat_at": at}
        if session.get_bind().dialect.name == "postgresql":  # a new run's row may be there now
            written_now = session.execute(
                pg_insert(RunSignal).values(**values).on_conflict_do_nothing()
            )
        else:
            written_now = session.execute(insert(RunSignal).values(**values))
        if changed(written_now):
            written.append(conv_id)
    return written


_LOCK_HELD = text(
    "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted"
    " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    " AND classid::bigint = :hi AND objid::bigint = :lo AND objsubid = 1)"
)


def lock_held(session: Session, *, conv_id: str) -> bool:
    """Does some session hold the conversation's run lock (``app.store.run_locks``: a
    bigint advisory lock, which ``pg_locks`` shows as its high and low 32 bits)? Always
    False off PostgreSQL (one process: no rows, no locks)."""
    if session.get_bind().dialect.name != "postgresql":
        return False
    key = lock_key(conv_id) & 0xFFFFFFFFFFFFFFFF
    found = session.execute(_LOCK_HELD, {"hi": key >> 32, "lo": key & 0xFFFFFFFF}).scalar()
    return bool(found)


def live_run(session: Session, *, conv_id: str, stale_before: datetime) -> RunSignal | None:
    """The conversation's running turn, unless its heartbeat is older than
    ``stale_before`` and nobody holds its run lock (its replica is dead: a leftover)."""
    row = session.get(RunSignal, conv_id, populate_existing=True)
    if row is None:
        return None
    if row.heartbeat_at < stale_before and not lock_held(session, conv_id=conv_id):
        return None
    return row


def request_stop(
    session: Session,
    *,
    conv_id: str,
    by: str | None,
    asker: str,
    stale_before: datetime,
    now: datetime | None = None,
) -> RunSignal | None:
    """Ask the conversation's live run to stop (the first ask's time is kept) and notify
    its replica (not when ``asker``, the asking replica, runs it); None when no live run.
    A run that already answered is not asked again."""
    row = live_run(session, conv_id=conv_id, stale_before=stale_before)
    if row is None:
        return None
    if row.stop_requested_at is None:
        row.stop_requested_at, row.stop_requested_by = moment_of(now), by
        session.add(row)
        session.flush()
    if row.stopped_at is None and row.replica != asker:
        payload = {"conv_id": conv_id, "run_id": row.run_id, "replica": row.replica}
        notify(session, channel=STOP_CHANNEL, payload=payload)
    return row


def record_stopped(
    session: Session,
    *,
    conv_id: str,
    run_id: str,
    writes: list[dict[str, Any]],
    now: datetime | None = None,
) -> bool:
    """The running replica's answer: stopped, with these writes going on; notifies the
    asker. False when the run is gone (ended meanwhile)."""
    at = moment_of(now)
    stmt = (
        update(RunSignal)
        .where(col(RunSignal.conv_id) == conv_id, col(RunSignal.run_id) == run_id)
        .values(stopped_at=at, writes_in_flight=writes)
        .execution_options(synchronize_session=False)
    )
    if not changed(session.execute(stmt)):
        return False
    payload = {"conv_id": conv_id, "run_id": run_id, "stopped": True, "writes": writes}
    notify(session, channel=ANSWER_CHANNEL, payload=payload)
    return True


def record_finish(session: Session, *, conv_id: str, run_id: str, stopped: bool = False) -> bool:
    """The run ended: its row goes. If a stop was asked, the asker is told the run ended,
    and whether it had been stopped (``stopped``, or an answer on the row: the run's stop
    switch was thrown, by that ask or another, before it ended) or ended on its own: an
    asker that finds the row gone waits for this notification. False when the row was
    already gone (or is another run's).

    One ``DELETE … RETURNING``: a stop asked at the same moment either lands before it
    (and is seen here) or finds no row."""
    stmt = (
        delete(RunSignal)
        .where(col(RunSignal.conv_id) == conv_id, col(RunSignal.run_id) == run_id)
        .returning(col(RunSignal.stop_requested_at), col(RunSignal.stopped_at))
        .execution_options(synchronize_session=False)
    )
    gone = session.execute(stmt).first()
    if gone is None:
        return False
    if gone[0] is not None:  # asked: an asker may be waiting, or may find the row gone
        payload = {
            "conv_id": conv_id,
            "run_id": run_id,
            "stopped": stopped or gone[1] is not None,
            "ended": True,
        }
        notify(session, channel=ANSWER_CHANNEL, payload=payload)
    return True


def pending_stops(session: Session, *, replica: str) -> list[RunSignal]:
    """Runs of ``replica`` asked to stop and not answered yet (a listener's catch-up after
    a missed notification)."""
    stmt = select(RunSignal).where(
        col(RunSignal.replica) == replica,
        col(RunSignal.stop_requested_at).is_not(None),
        col(RunSignal.stopped_at).is_(None),
    )
    return [*session.exec(stmt)]


def heartbeat(
    session: Session,
    *,
    replica: str,
    runs: dict[str, tuple[str, str | None]],
    stale_before: datetime,
) -> tuple[list[tuple[str, str]], list[str]]:
    """A replica's heartbeat in one transaction: dead replicas' rows go
    (:func:`forget_stale`), ``runs``' rows are touched (:func:`beat`). Returns the stops
    asked of its rows and not answered yet (conv_id, run_id; a leftover's too) and the
    conversations whose rows were written again."""
    forget_stale(session, stale_before=stale_before)
    written = beat(session, replica=replica, runs=runs) if runs else []
    pending = [(r.conv_id, r.run_id) for r in pending_stops(session, replica=replica)]
    return pending, written


def forget_stale(session: Session, *, stale_before: datetime, limit: int = 100) -> int:
    """Delete up to ``limit`` rows of dead replicas (a heartbeat older than
    ``stale_before`` and a free run lock: a slow replica's run is kept); returns how
    many."""
    stale = select(RunSignal.conv_id).where(col(RunSignal.heartbeat_at) < stale_before)
    ids = [c for c in session.exec(stale.limit(limit)) if not lock_held(session, conv_id=c)]
    if not ids:
        return 0
    stmt = (
        delete(RunSignal)
        .where(col(RunSignal.conv_id).in_(ids), col(RunSignal.heartbeat_at) < stale_before)
        .execution_options(synchronize_session=False)
    )
    return changed(session.execute(stmt))
