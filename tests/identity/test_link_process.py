"""Linking through the real product process against the real sandbox: the password is in
no file of the data directory afterwards (the database, its WAL, the server's log, the
page storage), and an operator's CLI link works the same way."""

from __future__ import annotations

import io
import uuid
from pathlib import Path

import pytest

from app.cli_superset import superset_main
from app.events import ToolEndEvent
from app.sandbox import Sandbox
from app.settings import Settings
from app.store import superset_links as store
from app.store.db import Database
from tests.agent.harness import Harness
from tests.server_proc import Server, add_user, server_env

pytestmark = pytest.mark.superset


def _files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()]


def test_after_linking_the_password_is_in_no_file_of_the_data_directory(
    person_envs_file: Path, alice_password: str, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    env = server_env(data, SS_TOOLS_ENVIRONMENTS_FILE=str(person_envs_file))
    add_user(env, "carol", "analyst", "carol-pw-123")
    with Server(env) as server:
        token = server.token("carol", "carol-pw-123")
        body = {"env_id": "dev", "username": "alice", "password": "Wr0ng-" + alice_password}
        wrong = server.post("/api/superset/accounts", token, body)
        assert wrong.status_code == 422 and wrong.json()["error"] == "superset_login_refused"
        r = server.post("/api/superset/accounts", token, {**body, "password": alice_password})
        assert r.status_code == 201, r.text
        listed = server.get("/api/superset/accounts", token).json()["accounts"]
        assert [a["username"] for a in listed] == ["alice"]
        call = server.post("/api/agent/call", token, {"conv_id": "c1", "tool_name":
                           "superset_explore_database", "args": {"env_id": "dev"}})  # fmt: skip
        assert call.status_code == 200 and '"status": "completed"' in call.text
    files = _files(data)
    assert any(p.name.endswith(".db") for p in files) and any(p.suffix == ".log" for p in files)
    for path in files:  # the database, its WAL and shm, the server's log, page storage
        content = path.read_bytes()
        for secret in (alice_password, "Wr0ng-" + alice_password):
            assert secret.encode() not in content, path


def test_an_operator_links_an_account_with_the_cli(
    person_envs_file: Path, alice_password: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    settings = Settings(data_dir=tmp_path, dev=True, environments_file=person_envs_file)
    monkeypatch.setattr("sys.stdin", io.StringIO(alice_password + "\n"))
    code = superset_main(
        ["link", "dev", "carol", "--superset-user", "alice", "--password-stdin"], settings=settings
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "linked 'carol' to Superset account 'alice' on dev" in out.out
    assert alice_password not in out.out + out.err
    db = Database.open(settings.db_url)
    with db.session() as s:
        row = store.get_link(s, user_id="carol", env_id="dev")
    db.dispose()
    assert row is not None and row.active
    monkeypatch.setattr("sys.stdin", io.StringIO("not-her-password\n"))
    assert (
        superset_main(
            ["link", "dev", "dave", "--superset-user", "alice", "--password-stdin"],
            settings=settings,
        )
        == 1
    )
    assert "refused the sign-in" in capsys.readouterr().err


async def test_a_cross_environment_tool_needs_the_persons_account_on_both_ends(
    harness: Harness, superset_sandbox: Sandbox, alice_password: str, tmp_path: Path
) -> None:
    """dev and prod both act as each person: carol linked on dev only may not deploy to
    prod (refused before anything is sent); linked on both, the card's preflight has run
    on both ends, each as her own account there."""
    from app.superset.people import serve_people
    from app.superset.registry import load_environments

    envs = superset_sandbox.write_environments_file(tmp_path / "envs.toml", person=("dev", "prod"))
    registry = load_environments(envs)
    serve_people(registry, harness.parts.settings, harness.parts.db)
    harness.serve(registry)
    assert registry.accounts is not None
    await registry.accounts.link(registry.get("dev"), "carol", "alice", alice_password)
    harness.use(real=True)
    args = {"dashboard_id": "sales-overview", "source_env": "dev", "target_env": "prod"}
    events = await harness.call("deploy_dashboard", args, user="carol", role="admin",
                                conv_id=uuid.uuid4().hex)  # fmt: skip
    error = next(e for e in events if e.type == "error")
    assert (error.refusal.code, error.refusal.env_id) == ("account_not_linked", "prod")
    assert not any(isinstance(e, ToolEndEvent) for e in events)
    prod = superset_sandbox.env("prod")
    await registry.accounts.link(registry.get("prod"), "carol", prod.username, prod.password)
    events = await harness.call("deploy_dashboard", args, user="carol", role="admin",
                                conv_id=uuid.uuid4().hex)  # fmt: skip
    card = next(e for e in events if e.type == "confirm_required")
    assert card.metadata.details is not None  # the preflight ran, as her, on both ends
    await registry.aclose()
