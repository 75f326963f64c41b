"""``identity = "assertion"`` against a real Superset 6.1 started with the shipped security
manager (deploy/superset/act_as_security.py and its superset_config lines): the agent acts
as the person an operator mapped, and Superset itself refuses an Admin subject, a wrong
audience, an expired assertion, an unknown user and a key it does not trust."""

from __future__ import annotations

import shutil
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from joserfc.jwk import RSAKey

from app.events import ErrorEvent, ToolEndEvent
from app.sandbox import Sandbox, seed_sandbox, start_sandbox
from app.settings import Settings
from app.store.users import set_superset_username
from app.superset.assertions import AssertionSigner
from app.superset.people import serve_people
from app.superset.registry import EnvironmentRegistry, load_environments
from tests.agent.harness import Harness
from tests.identity.straight import queries
from tests.support import ensure_user

pytestmark = pytest.mark.superset

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "superset"
AUDIENCE = "superset:act-as-test"
REGIONS = "select region, count(*) as c from sales group by region order by region"


def _signer(key: RSAKey, **kw: object) -> AssertionSigner:
    return AssertionSigner(key, issuer="ss-tools", ttl_s=120, **kw)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def act_as_key() -> RSAKey:
    return RSAKey.generate_key(2048)


@pytest.fixture(scope="session")
def act_as_superset(
    superset_sandbox: Sandbox, act_as_key: RSAKey, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Sandbox]:
    """A dev instance of its own, installed as the site would: the security manager next
    to superset_config.py, the shipped lines appended, ss-tools' public key beside them."""

    def install(env_id: str, home: Path) -> str:
        shutil.copy(DEPLOY / "act_as_security.py", home / "act_as_security.py")
        (home / "ss-tools-act-as.pem").write_text(_signer(act_as_key).public_pem())
        lines = (DEPLOY / "superset_config_act_as.py").read_text()
        return lines + f"\nSS_TOOLS_ACT_AS_AUDIENCE = {AUDIENCE!r}\n"

    sandbox = start_sandbox(
        ("dev",), base_dir=tmp_path_factory.mktemp("act-as"), progress=print, extra_config=install
    )
    try:
        seed_sandbox(sandbox, print, cache_templates=False)
        yield sandbox
    finally:
        sandbox.stop()


def _me(sandbox: Sandbox, token: str) -> httpx.Response:
    return httpx.get(
        sandbox.env("dev").url + "/api/v1/me/",
        headers={"X-Act-As": token, "Accept": "application/json"}, timeout=30,
    )  # fmt: skip


def test_superset_accepts_a_good_assertion_for_an_active_user(
    act_as_superset: Sandbox, act_as_key: RSAKey
) -> None:
    r = _me(act_as_superset, _signer(act_as_key).sign("alice", AUDIENCE))
    assert r.status_code == 200 and r.json()["result"]["username"] == "alice"


@pytest.mark.parametrize(
    "case",
    [
        # an administrator is never acted as, whoever signs
        "admin_subject",
        # an assertion for another site
        "wrong_audience",
        # issued an hour ago: long expired
        "expired",
        # nobody of that name in Superset
        "unknown_user",
        # signed with a key the site does not trust
        "other_key",
    ],
)
def test_superset_refuses_what_it_must_not_trust(
    act_as_superset: Sandbox, act_as_key: RSAKey, case: str
) -> None:
    signer, sub, aud = _signer(act_as_key), "alice", AUDIENCE
    if case == "admin_subject":
        sub = "admin"
    elif case == "wrong_audience":
        aud = "superset:somewhere-else"
    elif case == "expired":
        signer = _signer(act_as_key, clock=lambda: time.time() - 3600)
    elif case == "unknown_user":
        sub = f"nobody-{uuid.uuid4().hex[:6]}"
    else:
        signer = _signer(RSAKey.generate_key(2048))
    r = _me(act_as_superset, signer.sign(sub, aud))
    assert r.status_code == 401, r.text


@pytest.fixture
async def on_assertion_env(
    harness: Harness, act_as_superset: Sandbox, act_as_key: RSAKey, tmp_path: Path
) -> AsyncIterator[EnvironmentRegistry]:
    """The harness serves the act-as instance as an assertion environment; carol is mapped
    to alice, root to admin (an operator's explicit choices)."""
    key_file = tmp_path / "act-as.pem"
    key_file.write_bytes(act_as_key.as_pem(private=True))
    envs = tmp_path / "environments.toml"
    envs.write_text(
        f'[[environment]]\nid = "dev"\nurl = "{act_as_superset.env("dev").url}"\n'
        f'identity = "assertion"\nassertion_audience = "{AUDIENCE}"\ntier = "dev"\n'
    )
    registry = load_environments(envs)
    settings = Settings(**{**harness.parts.settings.model_dump(exclude_unset=True),
                           "superset_assertion_key_file": key_file})  # fmt: skip
    serve_people(registry, settings, harness.parts.db)
    harness.serve(registry)
    for user, name in (("carol", "alice"), ("root", "admin")):
        ensure_user(harness.parts, user, "analyst")
        with harness.parts.db.session() as s:
            set_superset_username(s, username=user, superset_username=name)
    harness.use(real=True)
    yield registry
    await registry.aclose()


async def _call(harness: Harness, user: str, tool: str, **args: object) -> list[object]:
    return await harness.call(tool, dict(args), user=user, role="analyst", conv_id=uuid.uuid4().hex)


async def test_the_agent_acts_as_the_mapped_person_through_the_assertion(
    harness: Harness, on_assertion_env: EnvironmentRegistry, act_as_superset: Sandbox
) -> None:
    marker = f"select region, count(*) as n_{uuid.uuid4().hex[:8]} from sales group by region"
    events = await _call(harness, "carol", "superset_execute_sql", sql=marker, database="Sales")
    end = next(e for e in events if isinstance(e, ToolEndEvent))
    assert end.status == "completed", end.error
    assert [r["region"] for r in end.data["rows"]] == ["North"]  # her row-level rule
    ran = [q for q in queries(act_as_superset) if marker in (q.get("sql") or "")]
    assert [q["user"]["first_name"] for q in ran] == ["Alice"]
    executed = harness.audit_rows(kind="executed")
    assert executed[0]["superset_user"] == "alice"


async def test_an_admin_subject_is_refused_by_superset_and_an_unmapped_user_by_the_guard(
    harness: Harness, on_assertion_env: EnvironmentRegistry
) -> None:
    events = await _call(harness, "root", "superset_explore_database")
    error = next(e for e in events if isinstance(e, ErrorEvent))
    assert error.refusal is not None
    assert (error.refusal.code, error.refusal.account) == ("superset_denied", "admin")
    events = await _call(harness, "nomap", "superset_explore_database")
    error = next(e for e in events if isinstance(e, ErrorEvent))
    assert error.refusal is not None and error.refusal.code == "account_not_linked"
    assert error.offers == []  # nothing to connect: an operator maps the user
    assert not any(isinstance(e, ToolEndEvent) for e in events)
