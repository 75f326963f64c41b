"""One run per conversation and a stop from any replica (issue 27 items 1-4), through
nginx in front of two replicas on the suite's throwaway PostgreSQL, against a Superset
that accepts connections and never answers (``hole``): a read there runs until its tool
times out (60 s here), which is the long turn the tests stop, refuse beside and kill.

nginx's round-robin over ``/api`` is strict (one worker; ``test_behind_nginx``), so two
API requests in a row through it reach the two replicas; every test checks which replica
ran what (the ``run_signal`` row, the audit row of a stop from elsewhere) rather than
trusting that. The last test SIGKILLs replica A.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from sqlalchemy.engine import make_url

from app.events import decode_sse
from tests.nginx import find_nginx
from tests.pg import private_database
from tests.replicas.cluster import BlackHole, ReplicaSet, envs_with, start_replicas
from tests.server_proc import Server
from tests.support import require_or_skip

pytestmark = pytest.mark.postgres

TOOL_TIMEOUT_S = 60  # a read on the black hole runs this long unless stopped
LONG_READ = "list dashboards on hole"


@dataclass
class Cluster:
    replicas: ReplicaSet
    hole: BlackHole
    db: psycopg.Connection[Any]
    token: str

    @property
    def url(self) -> str:
        return self.replicas.url

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def rows(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        return self.db.execute(sql, params).fetchall()

    def audit(self, conv_id: str, kind: str | None = None) -> list[dict[str, Any]]:
        cols = "kind, tool, env, decision, reason, args"
        rows = self.rows(f"SELECT {cols} FROM audit_event WHERE conv_id = %s ORDER BY ts", conv_id)
        out = [dict(zip(cols.split(", "), r, strict=True)) for r in rows]
        return [r for r in out if kind is None or r["kind"] == kind]

    def running_on(self, conv_id: str, timeout: float = 10) -> str:
        """The replica (``/api/health``'s tag) whose run of ``conv_id`` is announced."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.rows("SELECT replica FROM run_signal WHERE conv_id = %s", conv_id)
            if found:
                return str(found[0][0]).rpartition(":")[2]  # host:pid:tag
            time.sleep(0.05)
        raise AssertionError(f"no run of {conv_id} announced")


@pytest.fixture(scope="module")
def cluster(pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Two replicas behind nginx on a database of their own, knowing the black hole
    (``hole``); long tasks beat every 0.5 s and count as dead after 3 s, swept every 1 s."""
    require_or_skip(find_nginx() is not None, "nginx is not installed (apt-get install nginx)")
    hole = BlackHole()
    with private_database(pg_url, prefix="runs") as db_url:
        replicas = start_replicas(
            Path(tmp_path_factory.mktemp("runs")),
            db_url,
            envs_toml=envs_with(hole.url),
            SS_TOOLS_TOOL_TIMEOUT_S=str(TOOL_TIMEOUT_S),
            SS_TOOLS_TASK_HEARTBEAT_S="0.5",
            SS_TOOLS_TASK_STALE_S="3",
            SS_TOOLS_TASK_SWEEP_S="1",
        )
        plain = make_url(db_url).set(drivername="postgresql")
        try:
            with psycopg.connect(
                plain.render_as_string(hide_password=False), autocommit=True
            ) as conn:
                yield Cluster(replicas, hole, conn, replicas.token())
        finally:
            replicas.stop()
            hole.close()


def new_conv() -> str:
    return f"rep-{uuid.uuid4().hex[:12]}"


def post(cluster: Cluster, path: str, body: dict[str, Any], *, base: str | None = None) -> Any:
    return httpx.post(
        (base or cluster.url) + path, json=body, headers=cluster.headers(), timeout=120
    )


@dataclass
class Streamed:
    """A turn's SSE stream read in a thread: its events so far, and when it ended."""

    events: list[dict[str, Any]] = field(default_factory=list)
    status: int | None = None
    ended: threading.Event = field(default_factory=threading.Event)
    started_tool: threading.Event = field(default_factory=threading.Event)

    def kinds(self) -> list[str]:
        return [e["type"] for e in self.events]


def stream_in_thread(url: str, path: str, body: dict[str, Any], token: str) -> Streamed:
    out = Streamed()

    def read() -> None:
        try:
            headers = {"Authorization": f"Bearer {token}"}
            with httpx.stream(
                "POST", url + path, json=body, headers=headers, timeout=TOOL_TIMEOUT_S + 30
            ) as r:
                out.status = r.status_code
                buffer = ""
                for text in r.iter_text():
                    buffer += text
                    *frames, buffer = buffer.split("\n\n")
                    for frame in frames:
                        for ev in decode_sse(frame + "\n\n"):
                            out.events.append(ev)
                            if ev["type"] == "tool_start":
                                out.started_tool.set()
        except httpx.HTTPError:
            pass  # the replica died under it (the last test)
        finally:
            out.ended.set()

    threading.Thread(target=read, daemon=True).start()
    return out


def start_long_turn(cluster: Cluster, conv_id: str) -> Streamed:
    """A turn through nginx that reads from the black hole; once its tool has started."""
    turn = stream_in_thread(
        cluster.url, "/api/agent/stream", {"message": LONG_READ, "conv_id": conv_id}, cluster.token
    )
    assert turn.started_tool.wait(30), turn.events
    deadline = time.monotonic() + 10  # its read is hanging on the black hole
    while cluster.hole.connections == 0:
        assert time.monotonic() < deadline, "the read never reached the black hole"
        time.sleep(0.05)
    return turn


def other_replica(cluster: Cluster, tag: str) -> str:
    (other,) = [s.url for t, s in cluster.replicas.tags.items() if t != tag]
    return other


def history(cluster: Cluster, conv_id: str, base: str | None = None) -> list[dict[str, Any]]:
    r = httpx.get(
        (base or cluster.url) + f"/api/agent/conversations/{conv_id}",
        headers=cluster.headers(),
        timeout=30,
    )
    assert r.status_code == 200, r.text
    return list(r.json()["messages"])


def test_a_cancel_on_b_stops_a_turn_running_on_a(cluster: Cluster) -> None:
    conv = new_conv()
    turn = start_long_turn(cluster, conv)
    runs_on = cluster.running_on(conv)
    t0 = time.monotonic()
    r = post(cluster, "/api/agent/cancel", {"conv_id": conv}, base=other_replica(cluster, runs_on))
    assert r.status_code == 200, r.text
    assert r.json() == {"conv_id": conv, "stopped": True, "withdrawn": None, "writes_in_flight": []}
    assert turn.ended.wait(10), "the turn ran on after the stop"
    assert time.monotonic() - t0 < 10  # not the tool's 60 s timeout
    assert turn.status == 200 and "stopped" in turn.kinds() and turn.kinds()[-1] == "done"
    (stopped,) = cluster.audit(conv, "turn_stopped")  # one row, by the replica asked
    assert stopped["decision"] == "cancel" and stopped["args"]["replica"] == runs_on
    deadline = time.monotonic() + 10  # the run's row goes with its end, and its lock
    while cluster.rows("SELECT 1 FROM run_signal WHERE conv_id = %s", conv):
        assert time.monotonic() < deadline, "the run's row outlived the run"
        time.sleep(0.05)
    again = post(cluster, "/api/agent/cancel", {"conv_id": conv})
    assert again.json()["stopped"] is False  # nothing runs any more, on either replica


def test_a_cancel_through_nginx_stops_the_turn_wherever_it_runs(cluster: Cluster) -> None:
    conv = new_conv()
    turn = start_long_turn(cluster, conv)
    r = post(cluster, "/api/agent/cancel", {"conv_id": conv})  # round-robin: either replica
    assert r.status_code == 200 and r.json()["stopped"] is True, r.text
    assert turn.ended.wait(10) and "stopped" in turn.kinds()


def test_a_second_message_elsewhere_is_refused_and_nothing_is_lost(cluster: Cluster) -> None:
    conv = new_conv()
    turn = start_long_turn(cluster, conv)
    runs_on = cluster.running_on(conv)
    elsewhere = other_replica(cluster, runs_on)
    second = {"message": "what can you do?", "conv_id": conv}
    t0 = time.monotonic()
    r = post(cluster, "/api/agent/stream", second, base=elsewhere)
    assert r.status_code == 409, r.text  # a JSON refusal before any stream
    assert r.json()["error"] == "conversation_busy"
    assert "another replica" in r.json()["reason"]
    assert time.monotonic() - t0 < 10  # a short wait, then the refusal
    refused = cluster.audit(conv, "request_invalid")
    assert [row["reason"] for row in refused] == ["conversation_busy"]
    # a direct call is refused the same way
    call = {"conv_id": conv, "tool_name": "show_capabilities", "args": {}}
    assert post(cluster, "/api/agent/call", call, base=elsewhere).status_code == 409
    assert not turn.ended.is_set()  # A's turn runs on, untouched
    post(cluster, "/api/agent/cancel", {"conv_id": conv}, base=elsewhere)
    assert turn.ended.wait(10)
    # once A's turn has ended, the message is taken on B, and the history holds both
    deadline = time.monotonic() + 10
    while (r := post(cluster, "/api/agent/stream", second, base=elsewhere)).status_code == 409:
        assert time.monotonic() < deadline, "the conversation stayed busy after its run"
        time.sleep(0.2)
    assert r.status_code == 200 and decode_sse(r.text)[-1]["type"] == "done"
    said = [m["text"] for m in history(cluster, conv) if m["role"] == "user"]
    assert said == [LONG_READ, "what can you do?"]


def test_a_confirmation_answered_on_both_replicas_at_once_runs_once(cluster: Cluster) -> None:
    for _ in range(3):  # a race: several rounds
        conv = new_conv()
        r = post(
            cluster, "/api/agent/stream", {"message": "start maintenance on dev", "conv_id": conv}
        )
        conf = next(e for e in decode_sse(r.text) if e["type"] == "confirm_required")
        answer = {
            "conv_id": conv,
            "confirmation_id": conf["confirmation_id"],
            "decision": "confirm",
        }
        bases = [s.url for s in cluster.replicas.servers]
        barrier = threading.Barrier(2)

        def resume(
            base: str, answer: dict[str, Any] = answer, barrier: threading.Barrier = barrier
        ) -> httpx.Response:
            barrier.wait()
            return post(cluster, "/api/agent/resume", answer, base=base)

        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(resume, bases))
        codes = sorted(a.status_code for a in answers)
        assert codes == [200, 409], [a.text for a in answers]
        won = next(a for a in answers if a.status_code == 200)
        lost = next(a for a in answers if a.status_code == 409)
        assert lost.json()["reason"] in {"replayed", "not_pending"}  # a clear refusal
        ends = [e for e in decode_sse(won.text) if e["type"] == "tool_end"]
        assert [e["status"] for e in ends] == ["completed"]
        assert len(cluster.audit(conv, "confirmed")) == 1
        executed = [
            row for row in cluster.audit(conv, "executed") if row["tool"] == "start_maintenance"
        ]
        assert len(executed) == 1  # the tool ran once
        windows = cluster.rows(
            "SELECT count(*) FROM maintenance WHERE env_id = 'dev' AND ended_at IS NULL"
        )
        assert windows == [(1,)]
        r = post(
            cluster, "/api/agent/stream", {"message": "end maintenance on dev", "conv_id": conv}
        )
        conf = next(e for e in decode_sse(r.text) if e["type"] == "confirm_required")
        answer = {
            "conv_id": conv,
            "confirmation_id": conf["confirmation_id"],
            "decision": "confirm",
        }
        assert post(cluster, "/api/agent/resume", answer).status_code == 200


def confirmed_backup_on(cluster: Cluster, base: str) -> tuple[str, Streamed]:
    """On replica ``base``: a backup of the black hole asked and confirmed; its stream
    (read in a thread) once its tool has started (the task hangs on the black hole)."""
    conv = new_conv()
    body = {"message": "back up hole", "conv_id": conv}
    r = post(cluster, "/api/agent/stream", body, base=base)
    card = next(e for e in decode_sse(r.text) if e["type"] == "confirm_required")
    answer = {"conv_id": conv, "confirmation_id": card["confirmation_id"], "decision": "confirm"}
    running = stream_in_thread(base, "/api/agent/resume", answer, cluster.token)
    assert running.started_tool.wait(30), running.events
    return conv, running


def restart(cluster: Cluster, server: Server) -> None:
    """Start a killed replica again (same port, a new tag)."""
    server.start()
    cluster.replicas.tags = {t: s for t, s in cluster.replicas.tags.items() if s is not server}
    tag = httpx.get(server.url + "/api/health", timeout=10).json()["replica"]
    cluster.replicas.tags[tag] = server


def test_a_decision_is_in_the_audit_log_even_if_its_replica_dies_right_after(
    cluster: Cluster,
) -> None:
    a = cluster.replicas.servers[0]
    conv, running = confirmed_backup_on(cluster, a.url)
    try:
        a.kill()  # the moment the confirmed call started: SIGKILL, no last flush
        assert running.ended.wait(10) and "done" not in running.kinds()
        assert [r["decision"] for r in cluster.audit(conv, "confirmed")] == ["confirm"]
    finally:
        restart(cluster, a)


def test_a_replica_killed_mid_turn_loses_nothing(cluster: Cluster) -> None:
    # the last test: it SIGKILLs one replica
    a = cluster.replicas.servers[0]
    a_tag = next(t for t, s in cluster.replicas.tags.items() if s is a)
    b_tag = next(t for t in cluster.replicas.tags if t != a_tag)
    # on A: a pending confirmation, and a long task (a backup of the black hole) running
    pending_conv = new_conv()
    body = {"message": "start maintenance on dev", "conv_id": pending_conv}
    r = post(cluster, "/api/agent/stream", body, base=a.url)
    pending = next(e for e in decode_sse(r.text) if e["type"] == "confirm_required")
    task_conv, running = confirmed_backup_on(cluster, a.url)
    deadline = time.monotonic() + 10
    while cluster.rows("SELECT status FROM task WHERE conv_id = %s", task_conv) != [("running",)]:
        assert time.monotonic() < deadline, "the backup's task never ran (queued, then running)"
        time.sleep(0.05)
    assert cluster.running_on(task_conv) == a_tag

    a.kill()  # SIGKILL: no shutdown handlers, no last flush
    assert running.ended.wait(10)
    assert "done" not in running.kinds()  # the stream died with A

    # no audit row of a finished turn is lost (each committed before its ``done``)
    for conv, tool in ((pending_conv, "start_maintenance"), (task_conv, "run_backup")):
        assert [r["tool"] for r in cluster.audit(conv, "confirm_requested")] == [tool]
        assert [r["decision"] for r in cluster.audit(conv, "tool_filtered")] == ["allow"]

    # the live replica marks A's task interrupted within a bounded time (stale 3 s + sweep)
    t0 = time.monotonic()
    while cluster.rows("SELECT status FROM task WHERE conv_id = %s", task_conv) != [
        ("interrupted",)
    ]:
        assert time.monotonic() - t0 < 15, "the dead replica's task was not swept"
        time.sleep(0.2)

    # the pending confirmation is answered through nginx (A is down: B answers)
    answer = {
        "conv_id": pending_conv,
        "confirmation_id": pending["confirmation_id"],
        "decision": "confirm",
    }
    r = post(cluster, "/api/agent/resume", answer)
    assert r.status_code == 200, r.text
    ends = [e for e in decode_sse(r.text) if e["type"] == "tool_end"]
    assert [e["status"] for e in ends] == ["completed"]
    health = httpx.get(cluster.url + "/api/health", timeout=10).json()
    assert health["replica"] == b_tag

    # A's conversations come back on B: the list and their history
    r = httpx.get(cluster.url + "/api/agent/conversations", headers=cluster.headers(), timeout=30)
    listed = {c["conv_id"] for c in r.json()["conversations"]}
    assert {pending_conv, task_conv} <= listed
    assert [m["text"] for m in history(cluster, task_conv) if m["role"] == "user"] == [
        "back up hole"
    ]
    # and the dead replica's lock died with it: the conversation runs on B at once
    r = post(cluster, "/api/agent/stream", {"message": "what can you do?", "conv_id": task_conv})
    assert r.status_code == 200 and decode_sse(r.text)[-1]["type"] == "done"
    r = post(
        cluster, "/api/agent/stream", {"message": "end maintenance on dev", "conv_id": pending_conv}
    )
    conf = next(e for e in decode_sse(r.text) if e["type"] == "confirm_required")
    answer = {
        "conv_id": pending_conv,
        "confirmation_id": conf["confirmation_id"],
        "decision": "confirm",
    }
    assert post(cluster, "/api/agent/resume", answer).status_code == 200
