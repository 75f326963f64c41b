"""Who this process is among the app's replicas (several processes on one PostgreSQL).

* :func:`replica_id` — ``"host:pid:boot"``: the owner of the task rows and run rows this
  process writes (``app.tasks.worker``, ``app.store.run_signals``). ``boot`` is random per
  start, so a later process that gets the same pid is another replica.
* :func:`replica_tag` — the ``boot`` part alone: what ``GET /api/health`` shows, so a
  load balancer's checks (and the tests) can tell the replicas apart without the answer
  naming a host or a pid.

Read them when they are needed, not at import: a process forked from one that imported
the app (a pre-fork server such as ``gunicorn --preload``, the suite's fork server) is
another replica, and gets its own identity in the fork (``os.register_at_fork``). Two
children that shared their parent's identity would each take the other's task rows and
run signals for its own.
"""

from __future__ import annotations

import os
import socket
import uuid

HOST = socket.gethostname()


def _boot() -> tuple[str, str]:
    tag = uuid.uuid4().hex[:8]
    return tag, f"{HOST}:{os.getpid()}:{tag}"


_tag, _id = _boot()


def _forked() -> None:
    global _tag, _id
    _tag, _id = _boot()


os.register_at_fork(after_in_child=_forked)


def replica_tag() -> str:
    return _tag


def replica_id() -> str:
    return _id


__all__ = ["HOST", "replica_id", "replica_tag"]
