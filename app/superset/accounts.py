"""People's Superset accounts: linking them, and finding the one a call acts as.

**Linking** (``identity = "person"``: :meth:`Accounts.link`): the product signs in to
Superset once with the person's username and password (``refresh: true``, the
environment's ``login_provider``), checks the account is active (``/api/v1/me/``), and
keeps what Superset issued: the refresh token, sealed (``app.superset.sealing``), in the
``superset_link`` table (``app.store.superset_links``). The password is used for that one
request and dropped: never stored, logged, audited or shown to a model.

**Per call** (:meth:`Accounts.account`): the guard asks which Superset account a person
acts as on an environment, before anything reaches Superset:

* person: their link; none is the refusal ``account_not_linked``, an expired one
  ``link_expired``;
* assertion: the Superset username an operator mapped them to (the users table's
  ``superset_username``); none is ``account_not_linked``.

A session for that person (``app.superset.registry``) then signs in from it
(:meth:`Accounts.credentials`). Superset refusing a link's refresh token ends the link
(:meth:`Accounts.expire`, audited). Link, unlink, expiry and refused links are audited
without secrets.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import httpx

from app.errors import SupersetRefused
from app.store import superset_links as store
from app.store.audit_log import record_audit
from app.store.db import Database
from app.store.models import utcnow
from app.store.users import get_user_by_name
from app.superset.assertions import AssertionSigner
from app.superset.credentials import (
    AssertionCredentials,
    Credentials,
    Linked,
    NoCredentials,
    PersonCredentials,
    ServiceCredentials,
)
from app.superset.environments import Environment
from app.superset.sealing import Sealer, SealError
from app.superset.sign_in import REFRESH_LIFETIME, LinkRefused, sign_in_once, token_expiry

__all__ = ["Accounts", "LinkRefused", "LinkView"]


@dataclass(frozen=True)
class LinkView:
    """A link as its person sees it (no secrets)."""

    env_id: str
    username: str
    linked_at: datetime
    expires_at: datetime | None
    expired: bool = False
    expired_reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "env_id": self.env_id,
            "username": self.username,
            "linked_at": self.linked_at.isoformat(),
            "expires_at": self.expires_at.isoformat() if self.expires_at else None,
        }
        if self.expired:
            out |= {"expired": True, "expired_reason": self.expired_reason}
        return out


def _view(row: store.SupersetLink) -> LinkView:
    return LinkView(
        row.env_id, row.superset_username, row.linked_at, row.expires_at,
        expired=not row.active, expired_reason=row.expired_reason,
    )  # fmt: skip


class Accounts:
    """The links and mappings of one app (a part of the registry, built by
    ``app.parts.build_parts``): the database, the sealer (person links) and the signer
    (assertions)."""

    def __init__(
        self,
        db: Database,
        *,
        sealer: Sealer | None,
        signer: AssertionSigner | None,
        header: str = "X-Act-As",
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.db = db
        self.sealer = sealer
        self.signer = signer
        self.header = header
        self._transport = transport

    # ---- linking ----------------------------------------------------------------------
    async def link(
        self, env: Environment, user_id: str, username: str, password: str
    ) -> tuple[LinkView, Linked, str]:
        """Sign ``username`` in to ``env`` once and keep the link; the link (as shown, and
        as a session uses it) and the access token Superset issued (so the first call
        needs no refresh). Raises LinkRefused."""
        if env.identity != "person" or self.sealer is None:
            raise LinkRefused(
                422, "invalid_request",
                f"environment '{env.id}' does not link accounts (identity = {env.identity!r})",
            )  # fmt: skip
        access, refresh, me = await sign_in_once(env, username, password, self._transport)
        now = utcnow()
        row = store.SupersetLink(
            user_id=user_id, env_id=env.id, superset_username=str(me.get("username") or username),
            sealed_token=self.sealer.seal(refresh), linked_at=now,
            expires_at=token_expiry(refresh) or now + REFRESH_LIFETIME,
        )  # fmt: skip
        saved = await asyncio.to_thread(self._save, row)
        linked = Linked(saved.superset_username, refresh, saved.generation)
        return _view(saved), linked, access

    def _save(self, row: store.SupersetLink) -> store.SupersetLink:
        with self.db.session() as session:
            store.save_link(session, row)
            record_audit(
                session, kind="superset_link", decision="allow", user=row.user_id,
                env=row.env_id, superset_user=row.superset_username,
                reason=f"linked Superset account {row.superset_username!r}",
            )  # fmt: skip
            found = store.get_link(session, user_id=row.user_id, env_id=row.env_id)
        assert found is not None
        return found

    async def refused_link(
        self, env_id: str, user_id: str, username: str, reason: str, client: str | None
    ) -> None:
        """Audit a refused link (the reason is Superset's or the product's, never a secret)."""

        def write() -> None:
            with self.db.session() as session:
                record_audit(
                    session, kind="superset_link", decision="deny", user=user_id, env=env_id,
                    superset_user=username[:200], reason=reason, args={"client": client},
                )  # fmt: skip

        await asyncio.to_thread(write)

    async def unlink(self, env_id: str, user_id: str) -> bool:
        def drop() -> bool:
            with self.db.session() as session:
                found = store.get_link(session, user_id=user_id, env_id=env_id)
                gone = store.delete_link(session, user_id=user_id, env_id=env_id)
                if gone:
                    record_audit(
                        session, kind="superset_unlink", decision="allow", user=user_id,
                        env=env_id, superset_user=found.superset_username if found else None,
                    )  # fmt: skip
                return gone

        return await asyncio.to_thread(drop)

    async def links(self, user_id: str | None) -> list[LinkView]:
        def read() -> list[LinkView]:
            with self.db.session() as session:
                return [(_view(r)) for r in store.list_links(session, user_id=user_id)]

        return await asyncio.to_thread(read)

    # ---- per call ---------------------------------------------------------------------
    async def account(self, env: Environment, user_id: str) -> Linked | str:
        """The account ``user_id`` acts as on ``env``: a person's link (opened), or an
        assertion environment's mapped Superset username. Raises the typed refusal."""
        if env.identity == "assertion":
            mapped = await asyncio.to_thread(self._mapped, user_id)
            if not mapped:
                raise SupersetRefused(
                    f"no Superset username is set for user {user_id!r}: an operator sets "
                    "it (python main.py users set-superset-username)",
                    code="account_not_linked", env_id=env.id,
                    reason="no Superset username is set for this user",
                )  # fmt: skip
            return mapped
        row = await asyncio.to_thread(self._link_row, user_id, env.id)
        if row is None:
            raise SupersetRefused(
                f"user {user_id!r} has no linked Superset account on '{env.id}'",
                code="account_not_linked", env_id=env.id,
            )  # fmt: skip
        if not row.active or row.sealed_token is None or self.sealer is None:
            raise self._expired(env.id, row, row.expired_reason or "the link ended")
        try:
            token = self.sealer.open(row.sealed_token)
        except SealError:
            raise self._expired(env.id, row, "its key is no longer configured") from None
        return Linked(row.superset_username, token, row.generation)

    @staticmethod
    def _expired(env_id: str, row: store.SupersetLink, why: str) -> SupersetRefused:
        return SupersetRefused(
            f"the Superset link of {row.superset_username!r} on '{env_id}' expired ({why}); "
            "link the account again",
            code="link_expired", env_id=env_id, reason=why, account=row.superset_username,
        )  # fmt: skip

    def _link_row(self, user_id: str, env_id: str) -> store.SupersetLink | None:
        with self.db.session() as session:
            return store.get_link(session, user_id=user_id, env_id=env_id)

    def _mapped(self, user_id: str) -> str | None:
        with self.db.session() as session:
            user = get_user_by_name(session, username=user_id)
            return user.superset_username if user is not None else None

    async def expire(self, env_id: str, user_id: str, generation: str, reason: str) -> bool:
        """End the link of ``generation`` (Superset refused its refresh token), audited;
        False when a newer link replaced it meanwhile (that one stays)."""

        def write() -> bool:
            with self.db.session() as session:
                ended = store.expire_link(
                    session, user_id=user_id, env_id=env_id, generation=generation, reason=reason
                )
                if ended:
                    record_audit(
                        session, kind="superset_link_expired", decision="deny", user=user_id,
                        env=env_id, reason=f"Superset refused the link's refresh: {reason}",
                    )  # fmt: skip
                return ended

        return await asyncio.to_thread(write)

    def credentials(
        self, env: Environment, user_id: str | None, found: Linked | str | None = None
    ) -> Credentials:
        """The credentials of a session acting for ``user_id`` on ``env`` (``found``: the
        account :meth:`account` gave, else loaded on first use)."""
        if env.identity == "service":
            return ServiceCredentials(env)
        if user_id is None:
            return NoCredentials(env)
        if env.identity == "assertion":
            if self.signer is None:
                return NoCredentials(env, user_id)

            async def mapped() -> str:
                got = await self.account(env, user_id)
                assert isinstance(got, str)
                return got

            account = found if isinstance(found, str) else None
            return AssertionCredentials(
                env, header=self.header, sign=self.signer.sign, load=mapped, account=account
            )

        async def load() -> Linked:
            got = await self.account(env, user_id)
            assert isinstance(got, Linked)
            return got

        async def expired(generation: str, reason: str) -> None:
            await self.expire(env.id, user_id, generation, reason)

        linked = found if isinstance(found, Linked) else None
        return PersonCredentials(env, load=load, on_expired=expired, linked=linked)
