"""Real processes: a conversation awaiting confirmation survives a restart (same data dir),
and two replicas on one PostgreSQL share conversations (raised on one, resumed on the other).
The offline planner answers; start_maintenance needs no Superset, only the state store."""

from __future__ import annotations

from pathlib import Path

from app.events import decode_sse
from tests.server_proc import UNREACHABLE_DEV, Server, add_user, server_env


def _prepare(tmp_path: Path, **extra: str) -> dict[str, str]:
    data = tmp_path / "data"
    data.mkdir()
    (data / "environments.toml").write_text(UNREACHABLE_DEV)
    env = server_env(data, **extra)
    add_user(env, "ops", "admin", "s3cret-pass")
    return env


def _ask_for_maintenance(server: Server, token: str, conv_id: str) -> dict:
    r = server.post(
        "/api/agent/stream",
        token,
        {"message": "start maintenance on dev", "conv_id": conv_id, "env_id": "dev"},
    )
    assert r.status_code == 200, r.text
    events = decode_sse(r.text)
    confirm = [e for e in events if e["type"] == "confirm_required"]
    assert confirm, events
    return confirm[0]


def _confirm(server: Server, token: str, conv_id: str, confirmation_id: str) -> list[dict]:
    r = server.post(
        "/api/agent/resume",
        token,
        {"conv_id": conv_id, "confirmation_id": confirmation_id, "decision": "confirm"},
    )
    assert r.status_code == 200, r.text
    return decode_sse(r.text)


def test_confirmation_survives_a_server_restart(tmp_path: Path) -> None:
    env = _prepare(tmp_path)
    first = Server(env).start()
    try:
        token = first.token("ops", "s3cret-pass")
        conf = _ask_for_maintenance(first, token, "restart-1")
    finally:
        first.kill()
    with Server(env) as second:
        pending = second.get("/api/agent/conversations/restart-1", token).json()
        assert pending["pending_confirmation"]["confirmation_id"] == conf["confirmation_id"]
        events = _confirm(second, token, "restart-1", conf["confirmation_id"])
        ends = [e for e in events if e["type"] == "tool_end"]
        assert ends and ends[0]["status"] == "completed", events


def test_two_replicas_on_one_postgres_share_a_confirmation(tmp_path: Path, pg_url: str) -> None:
    env = _prepare(tmp_path, SS_TOOLS_DATABASE_URL=pg_url)
    with Server(env) as a, Server(env) as b:
        token = a.token("ops", "s3cret-pass")
        conf = _ask_for_maintenance(a, token, "replicas-1")
        events = _confirm(b, token, "replicas-1", conf["confirmation_id"])
        ends = [e for e in events if e["type"] == "tool_end"]
        assert ends and ends[0]["status"] == "completed", events
        replay = b.post(
            "/api/agent/resume",
            token,
            {
                "conv_id": "replicas-1",
                "confirmation_id": conf["confirmation_id"],
                "decision": "confirm",
            },
        )
        assert replay.status_code == 409
