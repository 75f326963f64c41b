"""Per-user limits, the same on every door: how fast one user may start turns and direct
calls, and how many of their runs may go at once. Both live in the database
(``app.store.user_rates``, ``app.store.run_slots``), so they hold across replicas.

``prepare_turn`` / ``prepare_call`` ask :meth:`UserLimits.admit` once their input is
checked: first a slot among the user's ``user_max_running`` (a lease, so a dead replica's
slot frees itself within ``run_slot_ttl_s``), then the user's pace (a bucket of
``user_turns_per_minute`` turns, or ``user_calls_per_minute`` calls, refilling evenly over
the minute). ``prepare_resume`` asks :meth:`UserLimits.hold` for a confirmed answer only,
before the confirmation is spent. The slot rides on the checked request; the core adopts
it when the run starts (:meth:`UserLimits.adopt`: its lease is renewed while the run goes)
and frees it when the run has ended, however it ended (:meth:`UserLimits.free`).

What is counted, and why:

* **turns** and **direct calls**, at the door, before anything runs: a refusal there is
  clean (429 with ``Retry-After``, nothing started, the page keeps the text). A turn's
  model calls are not counted one by one: a turn makes them one at a time, at most
  ``MAX_STEPS`` steps and a repair try each, so the slots bound how many run at once and
  the turn rate bounds how many start per minute. Refusing a model call halfway through
  a turn would leave it cut off after a write.
* **answers to confirmations** are not paced: each answers a confirmation that a counted
  turn or call made, and a person's decision must not wait on a counter. A confirmed
  answer runs the tool and the model again, so it takes a slot (refused while all are
  busy, and the confirmation stays pending); a denial takes none. A **Stop** is never
  limited (it does not come here at all).

Each refusal is audited (``rate_limited``, deny, which limit and the wait) and raised as
:class:`~app.agent.core.requests.RateLimited`. If the database does not answer, the
request is refused with 503 rather than run unlimited.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import math
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy.exc import SQLAlchemyError

from app.agent.audit import AuditWriter
from app.agent.core.requests import RateLimited, RequestRefused, Slot
from app.auth import Principal
from app.replica import replica_id
from app.settings import Settings
from app.store import run_slots, user_rates
from app.store.db import Database

log = logging.getLogger("ss_tools.limits")

Kind = Literal["turn", "call"]
WINDOW_S = 60.0
#: What a refusal for a full set of slots tells the client to wait: a turn usually ends
#: within seconds (and the person may stop one); the slot itself is not timed.
BUSY_RETRY_S = 5
PRUNE_EVERY_S = 600.0
MAX_KEY_CHARS = 200
UNREACHABLE = "The shared database did not answer; try again in a moment."


def user_key(user_id: str) -> str:
    """The user's key in the limits' tables: the id itself, or a digest of a long one (an
    external identity's issuer and subject can be long)."""
    if len(user_id) <= MAX_KEY_CHARS:
        return user_id
    return "sha256:" + hashlib.sha256(user_id.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Admitted:
    """What one admission found: the slot's number (None: none taken) and the pace."""

    number: int | None
    pace: user_rates.Pace | None


class UserLimits:
    """The per-user limits of one app (one per core); ``clock`` gives epoch seconds
    (``time.time``) and ``sleep`` waits between a lease's renewals (``asyncio.sleep``):
    a test sets fake ones."""

    def __init__(
        self,
        settings: Settings,
        db: Database,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        self.settings = settings
        self.db = db
        self.clock = clock
        self.sleep = sleep
        self._pruned_at = -math.inf

    # ---- at the door ------------------------------------------------------------------
    async def admit(
        self, kind: Kind, principal: Principal, row: dict[str, Any], audit: AuditWriter
    ) -> Slot | None:
        """A turn's or a direct call's slot and pace, in one transaction (a refused pace
        gives the slot back; a refused slot counts no pace); a refusal of either is
        audited and raised as ``RateLimited``. None: no slot limit."""
        pace_limit = (
            self.settings.user_turns_per_minute
            if kind == "turn"
            else self.settings.user_calls_per_minute
        )
        if pace_limit <= 0 and self.settings.user_max_running <= 0:
            return None
        key, lease = user_key(principal.user_id), uuid.uuid4().hex
        admitted = await self._blocking(
            self._admit, key, lease, row.get("conv_id"), f"{kind}:{key}", pace_limit
        )
        if admitted.pace is not None and not admitted.pace.allowed:
            wait = max(1, math.ceil(admitted.pace.retry_after_s))
            what = "turns" if kind == "turn" else "tool calls"
            reason = f"Too many {what}: at most {pace_limit} a minute."
            args = {"limit": f"{kind}s_per_minute", "max": pace_limit, "retry_after_s": wait}
            raise await self._refuse(audit, "rate_limited", reason, wait, args, row)
        return await self._slot(admitted, key, lease, audit, row)

    async def hold(
        self, principal: Principal, row: dict[str, Any], audit: AuditWriter
    ) -> Slot | None:
        """One of the user's ``user_max_running`` slots, unpaced (a confirmed answer);
        None: no slot limit."""
        if self.settings.user_max_running <= 0:
            return None
        key, lease = user_key(principal.user_id), uuid.uuid4().hex
        admitted = await self._blocking(self._admit, key, lease, row.get("conv_id"), "", 0)
        return await self._slot(admitted, key, lease, audit, row)

    async def _slot(
        self, admitted: Admitted, key: str, lease: str, audit: AuditWriter, row: dict[str, Any]
    ) -> Slot | None:
        """The slot taken; None when slots are not limited; the audited refusal when one
        was needed and none was free."""
        if admitted.number is not None:
            return Slot(key, admitted.number, lease)
        limit = self.settings.user_max_running
        if limit <= 0:
            return None
        reason = (
            f"{limit} of your requests are already running (at most {limit} at once). "
            "Wait for one to end, or stop one."
        )
        args = {"limit": "running", "max": limit, "retry_after_s": BUSY_RETRY_S}
        raise await self._refuse(audit, "too_many_running", reason, BUSY_RETRY_S, args, row)

    @staticmethod
    async def _refuse(
        audit: AuditWriter,
        error: str,
        reason: str,
        wait: int,
        args: dict[str, Any],
        row: dict[str, Any],
    ) -> RateLimited:
        await audit.record(kind="rate_limited", decision="deny", reason=reason, args=args, **row)
        await audit.flush()
        return RateLimited(error, reason, wait)

    # ---- a run's slot ------------------------------------------------------------------
    def adopt(self, slot: Slot | None) -> Slot | None:
        """The run has started: renew the slot's lease while it goes."""
        if slot is not None and slot.beat is None and not slot.freed:
            slot.beat = asyncio.ensure_future(self._beat(slot))
        return slot

    async def free(self, slot: Slot | None) -> None:
        """The run has ended (or never started): give the slot back. Never raises: a slot
        that cannot be freed now expires with its lease."""
        if slot is None or slot.freed:
            return
        slot.freed = True
        beat, slot.beat = slot.beat, None
        if beat is not None:
            beat.cancel()
        await asyncio.shield(self._give_back(slot, beat))  # not left half done if cancelled

    async def _give_back(self, slot: Slot, beat: asyncio.Task[None] | None) -> None:
        if beat is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await beat
        try:
            await asyncio.to_thread(self._release, slot)
        except SQLAlchemyError as exc:
            log.warning("slot %s of a run not freed (it expires): %r", slot.number, exc)

    async def _beat(self, slot: Slot) -> None:
        ttl = self.settings.run_slot_ttl_s
        while True:
            await self.sleep(ttl / 3)
            try:
                kept = await asyncio.to_thread(self._renew, slot, self.clock() + ttl)
            except SQLAlchemyError as exc:  # the next beat tries again before it expires
                log.warning("slot %s of a run not renewed: %r", slot.number, exc)
                continue
            if not kept:
                log.warning("slot %s of a run was taken over after it expired", slot.number)
                return

    # ---- the database (worker threads) ---------------------------------------------------
    async def _blocking(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return await asyncio.to_thread(fn, *args)
        except SQLAlchemyError as exc:
            log.warning("per-user limits unreadable: %r", exc)
            raise RequestRefused(503, "coordination_unavailable", UNREACHABLE) from None

    def _admit(
        self, key: str, lease: str, conv_id: str | None, pace_key: str, pace_limit: int
    ) -> Admitted:
        """One transaction: a slot (when slots are limited), then the pace (when paced);
        a refused pace rolls the slot back, a refused slot counts no pace."""
        now, slots = self.clock(), self.settings.user_max_running
        with self.db.session() as session:
            number = None
            if slots > 0:
                number = run_slots.acquire(
                    session, user_key=key, limit=slots, lease=lease, holder=replica_id(),
                    conv_id=conv_id, now=now, ttl_s=self.settings.run_slot_ttl_s,
                )  # fmt: skip
                if number is None:
                    return Admitted(None, None)
            if pace_limit <= 0:
                return Admitted(number, None)
            if now - self._pruned_at >= PRUNE_EVERY_S:
                self._pruned_at = now
                user_rates.prune(session, now=now)
            pace = user_rates.take(
                session, key=pace_key, limit=pace_limit, window_s=WINDOW_S, now=now
            )
            if not pace.allowed:
                session.rollback()  # the slot goes back with it
                return Admitted(None, pace)
            return Admitted(number, pace)

    def _renew(self, slot: Slot, expires_at: float) -> bool:
        with self.db.session() as session:
            return run_slots.renew(
                session,
                user_key=slot.user_key,
                slot=slot.number,
                lease=slot.lease,
                expires_at=expires_at,
            )

    def _release(self, slot: Slot) -> bool:
        with self.db.session() as session:
            return run_slots.release(
                session, user_key=slot.user_key, slot=slot.number, lease=slot.lease
            )

    def running(self, principal: Principal) -> int:
        """Blocking: how many of the user's slots are held now (tests, operators)."""
        with self.db.session() as session:
            return run_slots.running(
                session, user_key=user_key(principal.user_id), now=self.clock()
            )
