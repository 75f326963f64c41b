"""Four-eyes across replicas: two real product processes on one PostgreSQL database. A
request made on replica 1 is approved on replica 2: the call runs there, once, as the
requester, and replica 1 reads the result in the requester's conversation. Two approvers
racing on the two replicas: it runs exactly once."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from app.events import decode_sse
from tests.nginx import find_nginx
from tests.pg import private_database
from tests.replicas.cluster import PASSWORD, USER, ReplicaSet, start_replicas
from tests.server_proc import UNREACHABLE_DEV, Server, add_user
from tests.store_reader import AuditReader
from tests.support import require_or_skip

pytestmark = pytest.mark.timeout(300)

#: two prod environments nothing answers on (a maintenance window needs no Superset)
ENVS = UNREACHABLE_DEV + "".join(
    f'\n[[environment]]\nid = "{env}"\nname = "{env}"\nurl = "http://127.0.0.1:9"\n'
    f'username = "admin"\npassword = "unused"\ntier = "prod"\n'
    for env in ("prod", "prod-eu", "prod-us")
)
APPROVERS = ("rev", "carol")


@pytest.fixture(scope="module")
def four_eyes(
    pg_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[ReplicaSet, AuditReader]]:
    require_or_skip(find_nginx() is not None, "nginx is not installed (apt-get install nginx)")
    base = tmp_path_factory.mktemp("four-eyes-replicas")
    policy = base / "policy.toml"
    policy.write_text('[approval]\nsecond_person = ["write@prod"]\n')
    with private_database(pg_url, prefix="foureyes") as db_url:
        replicas = start_replicas(
            base, db_url, count=2, envs_toml=ENVS, SS_TOOLS_POLICY_FILE=str(policy)
        )
        reader = AuditReader(db_url)
        try:
            for name in APPROVERS:
                add_user(replicas.servers[0].env, name, "admin", PASSWORD)
            yield replicas, reader
        finally:
            reader.close()
            replicas.stop()


def _token(server: Server, user: str) -> str:
    return server.token(user, PASSWORD)


def _waiting(server: Server, conv_id: str, env: str) -> str:
    """``ops`` asks ``server`` for a maintenance window on ``env`` (a write on prod) and
    confirms it there: it waits. The request's id."""
    token = _token(server, USER)
    body = {"conv_id": conv_id, "tool_name": "start_maintenance",
            "args": {"env_id": env, "reason": "release"}}  # fmt: skip
    events = decode_sse(server.post("/api/agent/call", token, body).text)
    card = next(e for e in events if e["type"] == "confirm_required")
    answer = {"conv_id": conv_id, "confirmation_id": card["confirmation_id"], "decision": "confirm"}
    events = decode_sse(server.post("/api/agent/resume", token, answer).text)
    assert events[-1]["reason"] == "awaiting_approval", events
    return str(next(e for e in events if e["type"] == "awaiting_approval")["approval_id"])


def _replica_of(server: Server) -> str:
    return str(httpx.get(server.url + "/api/health", timeout=10).json()["replica"])


def test_a_request_made_on_replica_1_is_approved_and_run_on_replica_2(four_eyes: Any) -> None:
    replicas, audit = four_eyes
    one, two = replicas.servers
    assert _replica_of(one) != _replica_of(two)
    approval_id = _waiting(one, "four-eyes-r1", "prod")
    r = two.post(f"/api/approvals/{approval_id}", _token(two, "rev"), {"decision": "approve"})
    assert r.status_code == 200, r.text
    assert r.json()["outcome"] == "completed"
    # replica 1 reads the result in the requester's conversation (the shared checkpoint)
    view = one.get("/api/agent/conversations/four-eyes-r1", _token(one, USER)).json()
    assert view["awaiting_approval"] is None
    [row] = [c for c in view["tool_calls"] if c["tool_name"] == "start_maintenance"]
    assert row["status"] == "completed", row
    executed = audit.rows(kind="executed", conv_id="four-eyes-r1")
    assert [(e["user"], e["tool"], e["env"]) for e in executed] == [
        (USER, "start_maintenance", "prod")
    ]
    [approved] = audit.rows(kind="approved", approval=approval_id)
    assert approved["user"] == "rev"


def test_two_approvers_racing_on_two_replicas_run_it_exactly_once(four_eyes: Any) -> None:
    replicas, audit = four_eyes
    one, two = replicas.servers
    approval_id = _waiting(one, "four-eyes-race", "prod-eu")

    def approve(pair: tuple[Server, str]) -> httpx.Response:
        server, user = pair
        token = _token(server, user)
        return server.post(f"/api/approvals/{approval_id}", token, {"decision": "approve"})

    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(approve, [(one, "rev"), (two, "carol")]))
    statuses = sorted(a.status_code for a in answers)
    assert statuses[0] == 200 and statuses[1] == 409, [a.text for a in answers]
    refused = next(a for a in answers if a.status_code == 409).json()["error"]
    assert refused in ("already_decided", "conversation_busy", "not_pending")
    executed = audit.rows(kind="executed", conv_id="four-eyes-race")
    assert len(executed) == 1 and executed[0]["user"] == USER


def test_the_queue_is_one_across_replicas(four_eyes: Any) -> None:
    replicas, _ = four_eyes
    one, two = replicas.servers
    approval_id = _waiting(two, "four-eyes-queue", "prod-us")
    rows = two.get("/api/approvals", _token(one, "carol")).json()["approvals"]
    listed = one.get("/api/approvals", _token(one, "carol")).json()["approvals"]
    assert approval_id in {r["id"] for r in rows} and approval_id in {r["id"] for r in listed}
    r = one.post(f"/api/approvals/{approval_id}", _token(one, USER), {"decision": "approve"})
    assert (r.status_code, r.json()["error"]) == (403, "own_request")
