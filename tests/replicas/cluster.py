"""Replicas behind nginx for the suite: :func:`start_replicas` starts ``count`` product
processes (``tests.server_proc.Server``) on one PostgreSQL database, with one shared
``SS_TOOLS_JWT_SECRET`` and a data directory each, and Debian's nginx in front of them
with the checked-in ``deploy/nginx.conf`` (``tests.nginx``). ``stop()`` ends them all.

The replicas know one Superset environment that never answers (``dev``: nothing listens
on port 9), which is enough for what needs no Superset (maintenance, capabilities).
"""

from __future__ import annotations

import string
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.nginx import Nginx
from tests.server_proc import Server, add_user, server_env

USER, PASSWORD = "ops", "s3cret-pass-for-replicas"
SHARED_JWT_SECRET = "replicas-share-this-secret-0123456789abcdef"
ENVS = """
[[environment]]
id = "dev"
name = "Development"
url = "http://127.0.0.1:9"
username = "admin"
password = "unused"
tier = "dev"
"""


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


def start_replicas(base: Path, db_url: str, count: int = 2) -> ReplicaSet:
    """``count`` replicas on ``db_url`` behind nginx, all answering ``/api/health``."""
    envs = []
    for name in string.ascii_lowercase[:count]:
        data = base / f"replica-{name}"
        data.mkdir(parents=True)
        (data / "environments.toml").write_text(ENVS)
        envs.append(
            server_env(data, SS_TOOLS_DATABASE_URL=db_url, SS_TOOLS_JWT_SECRET=SHARED_JWT_SECRET)
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
