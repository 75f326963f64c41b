"""One run per conversation and a stop from any replica, through
nginx in front of two replicas on the suite's throwaway PostgreSQL, against a Superset
that accepts connections and never answers (``hole``): a read there runs until its tool
times out (120 s here), which is the long turn the tests stop, refuse beside and kill.
Every wait is for a condition with a deadline generous enough for a loaded machine
(``tests.waiting``); a stop is told apart from the tool's own end by the stream's
``stopped`` event, never by how long it took.

nginx's round-robin over ``/api`` is strict (one worker; ``test_behind_nginx``), so two
API requests in a row through it reach the two replicas; every test checks which replica
ran what (the ``run_signal`` row, the audit row of a stop from elsewhere) rather than
trusting that. The last test SIGKILLs replica A.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.events import decode_sse
from tests.nginx import find_nginx
from tests.replicas.long_turns import (
    LONG_READ,
    Cluster,
    Streamed,
    asked_card,
    confirming,
    long_turn_cluster,
    new_conv,
    other_replica,
    post,
    start_long_turn,
    stream_in_thread,
)
from tests.replicas.stop_trials import cpu_burners, stop_from_the_other_replica
from tests.server_proc import Server
from tests.support import require_or_skip
from tests.waiting import WAIT_S, wait_until

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def cluster(pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Two replicas behind nginx on a database of their own, knowing the black hole
    (``tests.replicas.long_turns``)."""
    require_or_skip(find_nginx() is not None, "nginx is not installed (apt-get install nginx)")
    with long_turn_cluster(pg_url, Path(tmp_path_factory.mktemp("runs"))) as cluster:
        yield cluster


def history(cluster: Cluster, conv_id: str, base: str | None = None) -> list[dict[str, Any]]:
    r = httpx.get(
        (base or cluster.url) + f"/api/agent/conversations/{conv_id}",
        headers=cluster.headers(),
        timeout=30,
    )
    assert r.status_code == 200, r.text
    return list(r.json()["messages"])


def stopped_elsewhere(turn: Streamed, answer: httpx.Response) -> None:
    """``answer`` (a stop asked on the replica that does not run the turn) is honest: the
    turn was stopped, confirmed by its replica or accepted (recorded, honoured at its next
    heartbeat on a busy machine), and the turn's stream then says so and ends."""
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["stopped"] is True and body["withdrawn"] is None, body
    assert (body["confirmed"], body["status"]) in {(True, "stopped"), (False, "stopping")}, body
    assert body["writes_in_flight"] == []
    assert turn.ended.wait(WAIT_S), "the turn ran on after the stop"
    assert turn.status == 200 and "stopped" in turn.kinds() and turn.kinds()[-1] == "done"


def test_a_cancel_on_b_stops_a_turn_running_on_a(cluster: Cluster) -> None:
    conv = new_conv()
    turn = start_long_turn(cluster, conv)
    runs_on = cluster.running_on(conv)
    r = post(cluster, "/api/agent/cancel", {"conv_id": conv}, base=other_replica(cluster, runs_on))
    stopped_elsewhere(turn, r)
    (stopped,) = cluster.audit(conv, "turn_stopped")  # one row, by the replica asked
    assert stopped["decision"] == "cancel" and stopped["args"]["replica"] == runs_on
    cluster.run_row_gone(conv)  # the run's row goes with its end, and its lock
    again = post(cluster, "/api/agent/cancel", {"conv_id": conv})
    assert again.json()["stopped"] is False  # nothing runs any more, on either replica
    assert again.json()["status"] == "not_running"


def test_a_stop_the_running_replica_cannot_answer_in_time_is_accepted_then_carried_out(
    cluster: Cluster,
) -> None:
    conv = new_conv()
    turn = start_long_turn(cluster, conv)
    runs_on = cluster.running_on(conv)
    with cluster.replicas.tags[runs_on].frozen():  # far too busy to answer within 3 s
        r = post(
            cluster, "/api/agent/cancel", {"conv_id": conv}, base=other_replica(cluster, runs_on)
        )
    assert r.status_code == 200, r.text
    body = r.json()  # recorded, not yet confirmed: said as such, never "nothing to stop"
    assert (body["stopped"], body["confirmed"], body["status"]) == (True, False, "stopping")
    assert turn.ended.wait(WAIT_S), "the accepted stop was never carried out"
    assert "stopped" in turn.kinds() and turn.kinds()[-1] == "done"
    (stopped,) = cluster.audit(conv, "turn_stopped")
    assert stopped["reason"] == "stop requested by the user; its replica has not answered yet"
    cluster.run_row_gone(conv)


#: Stops under load in CI; ``python -m bench.replica_stop_stress`` runs 50 the same way.
UNDER_LOAD = 5


def test_stops_from_the_other_replica_stay_honest_beside_cpu_bound_processes(
    cluster: Cluster,
) -> None:
    with cpu_burners(2):  # a busy machine: two processes spinning on the two cores
        trials = [stop_from_the_other_replica(cluster) for _ in range(UNDER_LOAD)]
    wrong = [(t.answer, why) for t in trials if (why := t.wrong())]
    assert wrong == []  # each "stopped" (confirmed) or "stopping" (accepted), and it stopped


def test_a_cancel_through_nginx_stops_the_turn_wherever_it_runs(cluster: Cluster) -> None:
    conv = new_conv()
    turn = start_long_turn(cluster, conv)
    r = post(cluster, "/api/agent/cancel", {"conv_id": conv})  # round-robin: either replica
    assert r.status_code == 200 and r.json()["stopped"] is True, r.text
    assert turn.ended.wait(WAIT_S) and "stopped" in turn.kinds()


def test_a_second_message_elsewhere_is_refused_and_nothing_is_lost(cluster: Cluster) -> None:
    conv = new_conv()
    turn = start_long_turn(cluster, conv)
    runs_on = cluster.running_on(conv)
    elsewhere = other_replica(cluster, runs_on)
    second = {"message": "what can you do?", "conv_id": conv}
    r = post(cluster, "/api/agent/stream", second, base=elsewhere)
    assert r.status_code == 409, r.text  # a JSON refusal before any stream (a short wait)
    assert r.json()["error"] == "conversation_busy"
    assert "another replica" in r.json()["reason"]
    refused = cluster.audit(conv, "request_invalid")
    assert [row["reason"] for row in refused] == ["conversation_busy"]
    # a direct call is refused the same way
    call = {"conv_id": conv, "tool_name": "show_capabilities", "args": {}}
    assert post(cluster, "/api/agent/call", call, base=elsewhere).status_code == 409
    assert not turn.ended.is_set()  # A's turn runs on, untouched
    post(cluster, "/api/agent/cancel", {"conv_id": conv}, base=elsewhere)
    assert turn.ended.wait(WAIT_S) and "stopped" in turn.kinds()
    # once A's turn has ended, the message is taken on B, and the history holds both

    def taken() -> httpx.Response | None:
        answer = post(cluster, "/api/agent/stream", second, base=elsewhere)
        return None if answer.status_code == 409 else answer

    r = wait_until(taken, "the conversation stayed busy after its run", every=0.2)
    assert r.status_code == 200 and decode_sse(r.text)[-1]["type"] == "done"
    said = [m["text"] for m in history(cluster, conv) if m["role"] == "user"]
    assert said == [LONG_READ, "what can you do?"]


def test_a_confirmation_answered_on_both_replicas_at_once_runs_once(cluster: Cluster) -> None:
    for _ in range(3):  # a race: several rounds
        conv = new_conv()
        answer = confirming(conv, asked_card(cluster, conv, "start maintenance on dev"))
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
        ended = confirming(conv, asked_card(cluster, conv, "end maintenance on dev"))
        assert post(cluster, "/api/agent/resume", ended).status_code == 200


def confirmed_backup_on(cluster: Cluster, base: str) -> tuple[str, Streamed]:
    """On replica ``base``: a backup of the black hole asked and confirmed; its stream
    (read in a thread) once its tool has started (the task hangs on the black hole)."""
    conv = new_conv()
    answer = confirming(conv, asked_card(cluster, conv, "back up hole", base=base))
    running = stream_in_thread(base, "/api/agent/resume", answer, cluster.token)
    assert running.started_tool.wait(WAIT_S), running.events
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
        assert running.ended.wait(WAIT_S) and "done" not in running.kinds()
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
    pending = asked_card(cluster, pending_conv, "start maintenance on dev", base=a.url)
    task_conv, running = confirmed_backup_on(cluster, a.url)
    wait_until(
        lambda: (
            cluster.rows("SELECT status FROM task WHERE conv_id = %s", task_conv) == [("running",)]
        ),
        "the backup's task never ran (queued, then running)",
    )
    assert cluster.running_on(task_conv) == a_tag

    a.kill()  # SIGKILL: no shutdown handlers, no last flush
    assert running.ended.wait(WAIT_S)
    assert "done" not in running.kinds()  # the stream died with A

    # no audit row of a finished turn is lost (each committed before its ``done``)
    for conv, tool in ((pending_conv, "start_maintenance"), (task_conv, "run_backup")):
        assert [r["tool"] for r in cluster.audit(conv, "confirm_requested")] == [tool]
        assert [r["decision"] for r in cluster.audit(conv, "tool_filtered")] == ["allow"]

    # the live replica marks A's task interrupted (stale after 3 s, swept every 1 s)
    wait_until(
        lambda: (
            cluster.rows("SELECT status FROM task WHERE conv_id = %s", task_conv)
            == [("interrupted",)]
        ),
        "the dead replica's task was not swept",
        every=0.2,
    )

    # the pending confirmation is answered through nginx (A is down: B answers)
    r = post(cluster, "/api/agent/resume", confirming(pending_conv, pending))
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
    ended = confirming(pending_conv, asked_card(cluster, pending_conv, "end maintenance on dev"))
    assert post(cluster, "/api/agent/resume", ended).status_code == 200
