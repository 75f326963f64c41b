"""Long turns on two replicas, for the tests of runs across replicas and for the stop's
stress bench (``bench.replica_stop_stress``): :func:`long_turn_cluster` starts two
replicas behind nginx on a database of their own, knowing a Superset that accepts
connections and never answers (``hole``, :class:`~tests.replicas.cluster.BlackHole`); a
read there runs until its tool times out (:data:`TOOL_TIMEOUT_S`), which is the long turn
the tests stop, refuse beside and kill.

Every wait here is for a condition, with a deadline generous enough for a loaded machine
(``tests.waiting``): a deadline is a hang's bound, never a speed check.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
from sqlalchemy.engine import make_url

from app.events import decode_sse
from tests.pg import private_database
from tests.replicas.cluster import BlackHole, ReplicaSet, envs_with, start_replicas
from tests.waiting import WAIT_S, wait_until

TOOL_TIMEOUT_S = 120  # a read on the black hole runs this long unless stopped
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

    def running_on(self, conv_id: str, timeout: float = WAIT_S) -> str:
        """The replica (``/api/health``'s tag) whose run of ``conv_id`` is announced."""
        found = wait_until(
            lambda: self.rows("SELECT replica FROM run_signal WHERE conv_id = %s", conv_id),
            f"no run of {conv_id} announced",
            timeout,
        )
        return str(found[0][0]).rpartition(":")[2]  # host:pid:tag

    def run_row_gone(self, conv_id: str) -> None:
        """Wait until the run's row has gone (with its end, and its lock)."""
        wait_until(
            lambda: not self.rows("SELECT 1 FROM run_signal WHERE conv_id = %s", conv_id),
            "the run's row outlived the run",
        )


@contextmanager
def long_turn_cluster(
    pg_url: str, base: Path, tool_timeout_s: int = TOOL_TIMEOUT_S
) -> Iterator[Cluster]:
    """Two replicas behind nginx on a database of their own on ``pg_url``'s server,
    knowing the black hole (``hole``); long tasks beat every 0.5 s and count as dead after
    3 s, swept every 1 s."""
    hole = BlackHole()
    with private_database(pg_url, prefix="runs") as db_url:
        replicas = start_replicas(
            base,
            db_url,
            envs_toml=envs_with(hole.url, timeout_s=tool_timeout_s),
            SS_TOOLS_TOOL_TIMEOUT_S=str(tool_timeout_s),
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
        (base or cluster.url) + path, json=body, headers=cluster.headers(), timeout=300
    )


def asked_card(
    cluster: Cluster, conv_id: str, message: str, *, base: str | None = None
) -> dict[str, Any]:
    """The ``confirm_required`` event of asking ``message`` in ``conv_id``."""
    r = post(cluster, "/api/agent/stream", {"message": message, "conv_id": conv_id}, base=base)
    return next(e for e in decode_sse(r.text) if e["type"] == "confirm_required")


def confirming(conv_id: str, card: dict[str, Any]) -> dict[str, Any]:
    """The body of ``/api/agent/resume`` that confirms ``card``."""
    return {"conv_id": conv_id, "confirmation_id": card["confirmation_id"], "decision": "confirm"}


@dataclass
class Streamed:
    """A turn's SSE stream read in a thread: its events so far, and when it ended."""

    events: list[dict[str, Any]] = field(default_factory=list)
    status: int | None = None
    ended: threading.Event = field(default_factory=threading.Event)
    ended_at: float | None = None  # time.monotonic() when the stream ended
    error: str | None = None  # how the stream broke, if it did
    body: str = ""  # a refusal's JSON, if the answer was not a stream
    started_tool: threading.Event = field(default_factory=threading.Event)

    def kinds(self) -> list[str]:
        return [e["type"] for e in self.events]


def stream_in_thread(url: str, path: str, body: dict[str, Any], token: str) -> Streamed:
    out = Streamed()

    def read() -> None:
        try:
            headers = {"Authorization": f"Bearer {token}"}
            with httpx.stream(
                "POST", url + path, json=body, headers=headers, timeout=TOOL_TIMEOUT_S * 3
            ) as r:
                out.status = r.status_code
                if r.status_code != 200:
                    out.body = r.read().decode(errors="replace")[:500]
                buffer = ""
                for text in r.iter_text():
                    buffer += text
                    *frames, buffer = buffer.split("\n\n")
                    for frame in frames:
                        for ev in decode_sse(frame + "\n\n"):
                            out.events.append(ev)
                            if ev["type"] == "tool_start":
                                out.started_tool.set()
        except httpx.HTTPError as exc:  # the replica died under it (the test that kills one)
            out.error = repr(exc)
        finally:
            out.ended_at = time.monotonic()
            out.ended.set()

    threading.Thread(target=read, daemon=True).start()
    return out


def start_long_turn(cluster: Cluster, conv_id: str) -> Streamed:
    """A turn through nginx that reads from the black hole; once its tool has started and
    its read hangs there."""
    before = cluster.hole.connections
    turn = stream_in_thread(
        cluster.url, "/api/agent/stream", {"message": LONG_READ, "conv_id": conv_id}, cluster.token
    )
    wait_until(
        lambda: turn.started_tool.is_set() or turn.ended.is_set(), "the turn's tool never started"
    )
    assert turn.started_tool.is_set(), (turn.status, turn.body, turn.error, turn.events)
    wait_until(lambda: cluster.hole.connections > before, "the read never reached the black hole")
    return turn


def other_replica(cluster: Cluster, tag: str) -> str:
    (other,) = [s.url for t, s in cluster.replicas.tags.items() if t != tag]
    return other
