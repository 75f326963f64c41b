"""A second person's approval (four-eyes): the requests' rows, their audit rows and their
webhook, for the graph (which opens a request when a confirmed call needs one:
``app.agent.nodes.approval``) and for the core (which decides one:
``app.agent.core.approvals``).

An :class:`ApprovalBook` is stateless over the app's database, audit writer and
settings (built where it is needed); a request is read as an
:class:`~app.agent.approval_record.ApprovalRecord`.
Every step of a request's story is an audit row whose ``args`` name its
``approval_id`` (the audit page filters a story by it): ``approval_requested``,
``approved`` / ``denied`` (by whom, with the reason), ``approval_withdrawn``,
``approval_expired``, ``approval_refused`` (an approval that was not accepted, such as
the requester's own), ``approval_webhook_failed``; the approved call's own rows carry
it too (``app.agent.audit.audit_scope``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any, Protocol

from app.agent.approval_record import ApprovalRecord, is_approval
from app.agent.approval_webhook import post_webhook, webhook_payload
from app.agent.audit import AuditWriter
from app.agent.state import AgentContext, PendingCall
from app.auth import Principal
from app.auth.external_ids import is_external_user_id
from app.settings import Settings
from app.store import approvals as rows
from app.store.db import Database

log = logging.getLogger("ss_tools.approvals")


class ApprovalBook:
    """The approval requests of ``db``; their story audited through ``audit``; each new
    one posted to the settings' webhook (if any)."""

    def __init__(self, db: Database, audit: AuditWriter, settings: Settings | None = None) -> None:
        """``settings``: the requests' time to live and the webhook (needed to open one)."""
        self.db = db
        self.audit = audit
        self.settings = settings
        self._posts: set[asyncio.Task[None]] = set()

    # ---- the rows (blocking; run in a thread) -------------------------------------------
    def _create(self, **values: Any) -> ApprovalRecord:
        assert self.settings is not None, "opening a request needs the settings"
        with self.db.session() as s:
            approval_id = rows.create(s, ttl_s=self.settings.approval_ttl_s, **values)
            row = rows.get(s, approval_id=approval_id)
            assert row is not None
            return ApprovalRecord.of(row)

    def _load(self, approval_id: str) -> ApprovalRecord | None:
        with self.db.session() as s:
            row = rows.get(s, approval_id=approval_id)
            return None if row is None else ApprovalRecord.of(row)

    def _decide(self, approval_id: str, status: str, by: str | None, reason: str | None) -> bool:
        with self.db.session() as s:
            return rows.decide(s, approval_id=approval_id, status=status, by=by, reason=reason)

    def _finish(self, approval_id: str, outcome: str) -> None:
        with self.db.session() as s:
            rows.finish(s, approval_id=approval_id, outcome=outcome)

    def _overdue(self) -> list[str]:
        with self.db.session() as s:
            return rows.overdue(s)

    def _listed(
        self, requester: str | None, statuses: tuple[str, ...], limit: int
    ) -> list[ApprovalRecord]:
        with self.db.session() as s:
            found = rows.listed(s, requester=requester, statuses=statuses, limit=limit)
            return [ApprovalRecord.of(r) for r in found]

    def _count(self, user_id: str) -> int:
        with self.db.session() as s:
            return rows.count_waiting(s, not_of=user_id)

    async def load(self, approval_id: str) -> ApprovalRecord | None:
        return await asyncio.to_thread(self._load, approval_id)

    async def decide(
        self, approval_id: str, status: str, *, by: str | None, reason: str | None = None
    ) -> bool:
        """Move a pending request to ``status`` once (see ``app.store.approvals.decide``)."""
        return await asyncio.to_thread(self._decide, approval_id, status, by, reason)

    async def finish(self, approval_id: str, outcome: str) -> None:
        await asyncio.to_thread(self._finish, approval_id, outcome)

    async def listed(
        self, *, requester: str | None = None, statuses: tuple[str, ...] = (rows.PENDING,),
        limit: int = 100,
    ) -> list[ApprovalRecord]:  # fmt: skip
        await self.expire_due()
        return await asyncio.to_thread(self._listed, requester, statuses, limit)

    async def count_waiting(self, user_id: str) -> int:
        """Pending requests ``user_id`` did not make (the header's count)."""
        return await asyncio.to_thread(self._count, user_id)

    # ---- a request's story ---------------------------------------------------------------
    async def open(
        self, p: PendingCall, ctx: AgentContext, *, tier: str | None, args_hash: str
    ) -> ApprovalRecord:
        """The durable request of the confirmed call ``p``, bound to ``args_hash`` (its
        tool, arguments and environment: ``app.agent.confirmation.args_hash``); audited,
        and posted to the webhook in the background."""
        name, args, env_id = p["tool_name"], dict(p.get("tool_args") or {}), p.get("env_id")
        record = await asyncio.to_thread(
            self._create,
            conv_id=ctx.conv_id,
            call_id=p["call_id"],
            confirmation_id=p.get("confirmation_id"),
            tool_name=name,
            args=args,
            args_hash=args_hash,
            env_id=env_id,
            tier=tier,
            risk=p.get("risk") or "write",
            risk_level=p.get("risk_level") or "guarded",
            card=dict(p.get("metadata") or {}),
            requester=ctx.user_id,
            requester_role=ctx.role,
            requester_source="external" if is_external_user_id(ctx.user_id) else "local",
            channel=ctx.channel,
            client=ctx.client,
        )
        await self.audit.record(
            kind="approval_requested",
            decision="confirm",
            reason=f"{record.risk_level} on {tier or 'no'} tier waits for a second person",
            args={"approval_id": record.id, "args": args, "expires_at": str(record.expires_at)},
            user=ctx.user_id,
            role=ctx.role,
            conv_id=ctx.conv_id,
            tool=name,
            env=env_id,
        )
        self._post(record)
        return record

    async def story(
        self, record: ApprovalRecord, kind: str, decision: str, who: Principal | None,
        reason: str | None = None, **extra: Any,
    ) -> None:  # fmt: skip
        """One audit row of ``record``'s story (``who``: the person acting; None: the
        product, e.g. an expiry)."""
        await self.audit.record(
            kind=kind,
            decision=decision,
            reason=reason,
            args={"approval_id": record.id, "requester": record.requester, **extra},
            user=who.user_id if who is not None else record.requester,
            role=who.role if who is not None else None,
            conv_id=record.conv_id,
            tool=record.tool_name,
            env=record.env_id,
        )

    async def withdraw(self, approval_id: str, principal: Principal, reason: str) -> None:
        """The requester withdraws a request that still waits (a new message in its
        conversation, a stop, the Withdraw button); one already decided stays."""
        record = await self.load(approval_id)
        if record is None:
            return
        if await self.decide(approval_id, "withdrawn", by=principal.user_id, reason=reason):
            await self.story(record, "approval_withdrawn", "cancel", principal, reason)
        elif record.status == rows.PENDING:  # its time was up: an expiry, told as one
            await self.expire(record)

    async def expire(self, record: ApprovalRecord) -> bool:
        """Mark ``record`` expired (once, audited); False when it was decided meanwhile."""
        if not await self.decide(record.id, "expired", by=None):
            return False
        await self.story(record, "approval_expired", "cancel", None, "the request expired")
        return True

    async def expire_due(self) -> None:
        """Every pending request whose time is up becomes ``expired`` (audited once)."""
        for approval_id in await asyncio.to_thread(self._overdue):
            record = await self.load(approval_id)
            if record is not None:
                await self.expire(record)

    # ---- the webhook ----------------------------------------------------------------------
    def _post(self, record: ApprovalRecord) -> None:
        url = self.settings.approval_webhook_url if self.settings is not None else None
        if not url:
            return
        task = asyncio.ensure_future(self._deliver(url, record))
        self._posts.add(task)
        task.add_done_callback(self._posts.discard)

    async def _deliver(self, url: str, record: ApprovalRecord) -> None:
        settings = self.settings
        assert settings is not None
        payload = webhook_payload(record.view(), base_url=settings.public_base_url)
        problem = await post_webhook(url, payload, settings.approval_webhook_timeout_s)
        if problem is not None:
            await self.story(record, "approval_webhook_failed", "error", None, problem)

    async def drain(self) -> None:
        """Wait for the webhook posts under way (tests, shutdown)."""
        while pending := [t for t in self._posts if not t.done()]:
            await asyncio.gather(*pending, return_exceptions=True)


class Spends(Protocol):
    """What :func:`withdraw_waiting` needs of the confirmations (``Confirmations``)."""

    db: Database
    audit: AuditWriter

    async def spend(self, graph: Any, principal: Principal, conv_id: str, cid: str) -> None: ...


async def withdraw_waiting(
    confirmations: Spends, graph: Any, principal: Principal, conv_id: str,
    waiting: Mapping[str, Any], reason: str,
) -> None:  # fmt: skip
    """Withdraw what one interrupt of the conversation waits for (``waiting``: its value;
    a new message or a stop): a confirmation is spent; a call that waits for a second
    person has its request withdrawn (audited; one decided meanwhile stays)."""
    if is_approval(waiting):
        book = ApprovalBook(confirmations.db, confirmations.audit)
        await book.withdraw(str(waiting["approval_id"]), principal, reason)
    elif waiting.get("confirmation_id"):
        await confirmations.spend(graph, principal, conv_id, str(waiting["confirmation_id"]))
