"""Acting in Superset as the person, against a scripted multi-user Superset: a person's
calls use their own tokens and CSRF session, never another's, never the service account;
a missing or refused link is a typed refusal before anything else is sent."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from app.errors import SupersetRefused
from app.store import superset_links as store
from app.store.audit_log import list_audit
from app.store.db import Database
from app.superset.accounts import Accounts, LinkRefused
from app.superset.registry import EnvironmentRegistry
from app.superset.sealing import Sealer
from tests.identity.people_fake import PeopleSuperset, person_env

KEY = "k" * 48


def _setup(fake: PeopleSuperset, **kw: Any) -> tuple[EnvironmentRegistry, Accounts, Database]:
    db = Database.open("sqlite://")
    transport = fake.transport()
    accounts = Accounts(db, sealer=Sealer([KEY]), signer=None, transport=transport)
    registry = EnvironmentRegistry([person_env()], transport=transport, accounts=accounts, **kw)
    return registry, accounts, db


async def _link(registry: EnvironmentRegistry, user: str, name: str, pw: str) -> None:
    assert registry.accounts is not None
    await registry.accounts.link(registry.get("dev"), user, name, pw)


async def test_linking_keeps_a_sealed_refresh_token_and_never_the_password() -> None:
    fake = PeopleSuperset()
    registry, _, db = _setup(fake)
    await _link(registry, "u-ann", "ann", "ann-pw-1")
    with db.session() as s:
        row = store.get_link(s, user_id="u-ann", env_id="dev")
        audit = [r.model_dump() for r in list_audit(s)]
    assert row is not None and row.superset_username == "ann" and row.active
    assert "refresh-ann" not in (row.sealed_token or "")  # sealed, not the token itself
    assert row.expires_at is not None
    assert "ann-pw-1" not in repr(row) + repr(audit)
    assert [(r["kind"], r["decision"], r["superset_user"]) for r in audit] == [
        ("superset_link", "allow", "ann")
    ]


async def test_a_wrong_password_is_refused_with_supersets_reason_and_no_link() -> None:
    fake = PeopleSuperset()
    registry, accounts, db = _setup(fake)
    with pytest.raises(LinkRefused) as info:
        await accounts.link(registry.get("dev"), "u-ann", "ann", "wrong")
    assert (info.value.status, info.value.error) == (422, "superset_login_refused")
    assert "Not authorized" in info.value.reason
    with db.session() as s:
        assert store.get_link(s, user_id="u-ann", env_id="dev") is None


async def test_each_person_acts_as_themselves_with_their_own_csrf_session() -> None:
    fake = PeopleSuperset()
    registry, _, _ = _setup(fake)
    await _link(registry, "u-ann", "ann", "ann-pw-1")
    await _link(registry, "u-bob", "bob", "bob-pw-1")
    ann, bob = registry.client("dev", "u-ann"), registry.client("dev", "u-bob")
    assert ann is not bob and ann.account == "" and registry.client("dev", "u-ann") is ann

    async def one(i: int) -> tuple[str, str]:
        who = ("u-ann", "ann") if i % 2 else ("u-bob", "bob")
        client = registry.client("dev", who[0])
        if i % 3:
            got = (await client.get_json("/api/v1/mine"))["result"]
        else:
            got = (await client.post_json("/api/v1/mine", {}))["result"]
            assert got["cookie"].startswith(f"sess-{who[1]}-")  # their own CSRF session
        return who[1], got["user"]

    answers = await asyncio.gather(*(one(i) for i in range(50)))
    assert all(asked == answered for asked, answered in answers)
    assert (ann.account, bob.account) == ("ann", "bob")
    linking = 4  # two sign-ins with passwords and their /me checks; none after
    assert not any(path == "/api/v1/security/login" for _, path, _ in fake.seen[linking:])
    await registry.aclose()


@pytest.mark.parametrize("user", [None, "u-nobody"])
async def test_no_link_is_refused_before_anything_is_sent(user: str | None) -> None:
    fake = PeopleSuperset()
    registry, _, _ = _setup(fake)
    with pytest.raises(SupersetRefused) as info:
        await registry.client("dev", user).get_json("/api/v1/mine")
    assert (info.value.code, info.value.env_id) == ("account_not_linked", "dev")
    assert fake.seen == []  # not even a sign-in: there is no one to sign in as


async def test_a_deactivated_account_ends_its_link_and_nothing_runs_as_anyone_else() -> None:
    fake = PeopleSuperset()
    registry, _, db = _setup(fake)
    await _link(registry, "u-ann", "ann", "ann-pw-1")
    client = registry.client("dev", "u-ann")
    assert (await client.get_json("/api/v1/mine"))["result"]["user"] == "ann"
    fake.inactive.add("ann")
    before = len(fake.seen)
    with pytest.raises(SupersetRefused) as info:
        await client.get_json("/api/v1/mine")
    assert info.value.code == "link_expired" and "Error loading the user" in (
        info.value.reason or ""
    )
    after = fake.seen[before:]
    assert [p for _, p, _ in after] == ["/api/v1/mine", "/api/v1/security/refresh"]
    assert fake.acted_as() <= {"ann", None}  # never another account, never the service
    with db.session() as s:
        row = store.get_link(s, user_id="u-ann", env_id="dev")
        kinds = [r.kind for r in list_audit(s)]
    assert row is not None and not row.active and row.sealed_token is None
    assert "superset_link_expired" in kinds
    with pytest.raises(SupersetRefused) as again:  # the next call: refused from the row
        await registry.client("dev", "u-ann").get_json("/api/v1/mine")
    assert again.value.code == "link_expired"
    await registry.aclose()


async def test_supersets_own_403_is_a_typed_refusal_with_its_words() -> None:
    fake = PeopleSuperset()
    registry, _, _ = _setup(fake)
    await _link(registry, "u-ann", "ann", "ann-pw-1")
    with pytest.raises(SupersetRefused) as info:
        await registry.client("dev", "u-ann").get_json("/api/v1/forbidden")
    assert (info.value.code, info.value.reason, info.value.account) == (
        "superset_denied",
        "Forbidden",
        "ann",
    )
    await registry.aclose()


async def test_the_pool_is_bounded_and_a_newer_link_replaces_a_persons_client() -> None:
    fake = PeopleSuperset(passwords={f"p{i}": "pw" for i in range(3)})
    registry, accounts, _ = _setup(fake, max_clients=2)
    for i in range(3):
        await _link(registry, f"u{i}", f"p{i}", "pw")
    first = registry.client("dev", "u0")
    registry.client("dev", "u1")
    registry.client("dev", "u2")  # u0's client is the least recently used: dropped
    assert registry.client("dev", "u0") is not first
    current = registry.client("dev", "u0")
    await current.get_json("/api/v1/mine")
    await _link(registry, "u0", "p0", "pw")  # linked again (a new generation)
    found = await accounts.account(registry.get("dev"), "u0")
    assert registry.client("dev", "u0", found=found) is not current
    await registry.aclose()


async def test_two_replicas_refreshing_at_once_both_keep_working(tmp_path: Path) -> None:
    """Superset's refresh does not rotate the refresh token: two replicas (two registries
    on one database) renewing the same person's token at once both get a working token,
    and the link stays as it was."""
    fake = PeopleSuperset()
    db = Database.open(f"sqlite:///{tmp_path / 'shared.db'}")
    transport = fake.transport()
    replicas = [
        EnvironmentRegistry(
            [person_env()], transport=transport,
            accounts=Accounts(db, sealer=Sealer([KEY]), signer=None, transport=transport),
        )
        for _ in range(2)
    ]  # fmt: skip
    await _link(replicas[0], "u-ann", "ann", "ann-pw-1")
    with db.session() as s:
        before = store.get_link(s, user_id="u-ann", env_id="dev")
    answers = await asyncio.gather(
        *(r.client("dev", "u-ann").get_json("/api/v1/mine") for r in replicas for _ in range(3))
    )
    assert {a["result"]["user"] for a in answers} == {"ann"}
    refreshes = [p for _, p, _ in fake.seen if p == "/api/v1/security/refresh"]
    assert len(refreshes) == 2  # one each: a replica's concurrent calls share its session
    with db.session() as s:
        after = store.get_link(s, user_id="u-ann", env_id="dev")
    assert after is not None and before is not None
    assert (after.generation, after.sealed_token, after.active) == (
        before.generation,
        before.sealed_token,
        True,
    )
    for r in replicas:
        await r.aclose()


@pytest.mark.parametrize("provider", ["db", "ldap"])
async def test_a_link_signs_in_with_the_environments_login_provider(provider: str) -> None:
    fake = PeopleSuperset()
    db = Database.open("sqlite://")
    accounts = Accounts(db, sealer=Sealer([KEY]), signer=None, transport=fake.transport())
    await accounts.link(person_env(login_provider=provider), "u-ann", "ann", "ann-pw-1")
    assert fake.providers == [provider]
