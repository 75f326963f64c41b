"""Replicas behind nginx for the suite: :func:`start_replicas` starts ``count`` product
processes (``tests.server_proc.Server``) on one PostgreSQL database, with one shared
``SS_TOOLS_JWT_SECRET`` and a data directory each, and Debian's nginx in front of them
with the checked-in ``deploy/nginx.conf`` (``tests.nginx``). ``stop()`` ends them all.

The replicas know one Superset environment that never answers (``dev``: nothing listens
on port 9), which is enough for what needs no Superset (maintenance, capabilities).
:class:`BlackHole` is a Superset that accepts connections and never answers: a turn
that reads from it runs until its tool times out (``start_replicas(..., envs=...)``).
"""

from __future__ import annotations

import socket
import string
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.nginx import Nginx
from tests.server_proc import UNREACHABLE_DEV, Server, add_user, server_env

USER, PASSWORD = "ops", "s3cret-pass-for-replicas"
SHARED_JWT_SECRET = "replicas-share-this-secret-0123456789abcdef"


class BlackHole:
    """A TCP server on loopback that accepts every connection and never answers (nor
    closes one) until :meth:`close`: a Superset that hangs."""

    def __init__(self) -> None:
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(256)
        self.port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._held: list[socket.socket] = []
        self._closed = threading.Event()
        threading.Thread(target=self._accept, name="black-hole", daemon=True).start()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self._held.append(conn)

    @property
    def connections(self) -> int:
        return len(self._held)

    def close(self) -> None:
        self._closed.set()
        self._sock.close()
        for conn in self._held:
            conn.close()


def envs_with(url: str, env_id: str = "hole", tier: str = "dev", timeout_s: float = 30) -> str:
    """``UNREACHABLE_DEV`` and one more environment at ``url`` (``timeout_s``: its HTTP
    timeout, so a read from a black hole there hangs that long)."""
    return (
        UNREACHABLE_DEV
        + f"""
[[environment]]
id = "{env_id}"
name = "Hangs"
url = "{url}"
username = "admin"
password = "unused"
tier = "{tier}"
timeout = {timeout_s}
"""
    )


@dataclass
class ReplicaSet:
    """The running replicas, their nginx and their database."""

    servers: list[Server]
    nginx: Nginx
    db_url: str
    tags: dict[str, Server] = field(default_factory=dict)  # /api/health's replica -> server

    @property
    def url(self) -> str:
        return self.nginx.url

    def token(self) -> str:
        """A bearer token for the admin ``ops``, fetched through nginx."""
        r = httpx.post(
            self.url + "/api/auth/token", json={"username": USER, "password": PASSWORD}, timeout=10
        )
        r.raise_for_status()
        return str(r.json()["access_token"])

    def stop(self) -> None:
        self.nginx.stop()
        for server in self.servers:
            server.stop()


def start_replicas(
    base: Path, db_url: str, count: int = 2, *, envs_toml: str = UNREACHABLE_DEV, **extra: str
) -> ReplicaSet:
    """``count`` replicas on ``db_url`` behind nginx, all answering ``/api/health``
    (``envs_toml``: their environments; ``extra``: more environment variables)."""
    envs = []
    for name in string.ascii_lowercase[:count]:
        data = base / f"replica-{name}"
        data.mkdir(parents=True)
        (data / "environments.toml").write_text(envs_toml)
        envs.append(
            server_env(
                data, SS_TOOLS_DATABASE_URL=db_url, SS_TOOLS_JWT_SECRET=SHARED_JWT_SECRET, **extra
            )
        )
    add_user(envs[0], USER, "admin", PASSWORD)
    servers = [Server(env) for env in envs]
    started: list[Server] = []
    try:
        with ThreadPoolExecutor(count) as pool:  # each start imports the whole product
            for server in pool.map(lambda s: s.start(), servers):
                started.append(server)
        nginx = Nginx([f"127.0.0.1:{s.port}" for s in servers], base / "nginx").start()
    except BaseException:
        for server in servers:
            server.stop()
        raise
    replicas = ReplicaSet(servers, nginx, db_url)
    for server in servers:
        tag = httpx.get(server.url + "/api/health", timeout=10).json()["replica"]
        replicas.tags[tag] = server
    return replicas
