"""Who this process is among the app's replicas (several processes on one PostgreSQL).

* :data:`REPLICA_ID` — ``"host:pid:boot"``: the owner of the task rows and run rows this
  process writes (``app.tasks.worker``, ``app.store.run_signals``). ``boot`` is random per
  start, so a later process that gets the same pid is another replica.
* :data:`REPLICA_TAG` — the ``boot`` part alone: what ``GET /api/health`` shows, so a
  load balancer's checks (and the tests) can tell the replicas apart without the answer
  naming a host or a pid.
"""

from __future__ import annotations

import os
import socket
import uuid

HOST = socket.gethostname()
REPLICA_TAG = uuid.uuid4().hex[:8]
REPLICA_ID = f"{HOST}:{os.getpid()}:{REPLICA_TAG}"

__all__ = ["HOST", "REPLICA_ID", "REPLICA_TAG"]
