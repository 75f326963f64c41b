"""A throwaway PostgreSQL cluster for tests: ``start_cluster() -> PgCluster``.

``initdb`` + ``pg_ctl`` from ``/usr/lib/postgresql/*/bin`` on a free 127.0.0.1 port in a
temp dir, trust auth, one database ``sstools``. The server refuses to run as root, so as
root every command runs as the ``postgres`` user (``runuser``). ``cluster.url`` is a
``postgresql+psycopg://`` URL; ``cluster.stop()`` stops it (``pg_ctl stop -m fast``) and
removes the directory (also registered with ``atexit``). ``private_database(url)`` makes
a database of its own on that server for one module's tests.

Usable outside pytest too::

    from tests.pg import start_cluster
    cluster = start_cluster()
    ...
    cluster.stop()
"""

from __future__ import annotations

import atexit
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
from psycopg import sql
from sqlalchemy.engine import make_url

from app.sandbox.common import Below
from app.sandbox.processes import free_port

DB_NAME = "sstools"
SUPERUSER = "postgres"
START_TIMEOUT_S = 60


class PgUnavailableError(RuntimeError):
    """No PostgreSQL binaries here, or the cluster could not start (message says why)."""


def find_bin_dir() -> Path | None:
    """The newest ``/usr/lib/postgresql/<version>/bin`` that has ``initdb``."""
    found = glob.glob("/usr/lib/postgresql/*/bin/initdb")

    def version(path: str) -> float:
        try:
            return float(Path(path).parent.parent.name)
        except ValueError:
            return 0.0

    return Path(max(found, key=version)).parent if found else None


_free_port = free_port


@dataclass
class PgCluster:
    base: Path
    bin_dir: Path
    port: int = 0
    run_as: str | None = None
    stopped: bool = field(default=False)

    data = Below("base", "data")
    log_file = Below("base", "postgres.log")

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://{SUPERUSER}@127.0.0.1:{self.port}/{DB_NAME}"

    def run(self, *cmd: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        argv = [str(self.bin_dir / cmd[0]), *cmd[1:]]
        if self.run_as:
            argv = ["runuser", "-u", self.run_as, "--", *argv]
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "LANG": "C"}
        proc = subprocess.run(
            argv, cwd=self.base, env=env, capture_output=True, text=True, timeout=120
        )
        if check and proc.returncode != 0:
            raise PgUnavailableError(
                f"{cmd[0]} failed ({proc.returncode}): {(proc.stderr or proc.stdout)[-800:]}"
                f"\n{self._log_tail()}"
            )
        return proc

    def _log_tail(self) -> str:
        try:
            return self.log_file.read_text(errors="replace")[-800:]
        except OSError:
            return ""

    def _start_server(self) -> None:
        opts = (
            f"-p {self.port} -h 127.0.0.1 -k {self.base} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        self.run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.log_file), "-w",
            "-t", str(START_TIMEOUT_S), "-o", opts, "start",
        )  # fmt: skip

    def stop(self) -> None:
        """Stop the server and delete its directory. Safe to call twice."""
        if self.stopped:
            return
        self.stopped = True
        try:
            if (self.data / "postmaster.pid").exists():
                self.run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop", check=False)
        finally:
            shutil.rmtree(self.base, ignore_errors=True)


def start_cluster(attempts: int = 3) -> PgCluster:
    """Start a private cluster; raises :class:`PgUnavailableError` when that is impossible."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise PgUnavailableError("PostgreSQL binaries not found (/usr/lib/postgresql/*/bin)")
    run_as = None
    base = Path(tempfile.mkdtemp(prefix="ss-tools-pg-"))
    if os.geteuid() == 0:
        try:
            pw = pwd.getpwnam(SUPERUSER)
        except KeyError as exc:
            shutil.rmtree(base, ignore_errors=True)
            raise PgUnavailableError("running as root and no 'postgres' user exists") from exc
        if shutil.which("runuser") is None:
            shutil.rmtree(base, ignore_errors=True)
            raise PgUnavailableError("running as root and 'runuser' is missing")
        os.chown(base, pw.pw_uid, pw.pw_gid)
        run_as = SUPERUSER
    cluster = PgCluster(base=base, bin_dir=bin_dir, run_as=run_as)
    atexit.register(cluster.stop)
    try:
        cluster.run(
            "initdb", "-D", str(cluster.data), "-U", SUPERUSER, "-A", "trust",
            "-E", "UTF8", "--no-locale", "--no-sync",
        )  # fmt: skip
        last: PgUnavailableError | None = None
        for _ in range(attempts):  # a port taken between probe and bind: try another
            cluster.port = _free_port()
            try:
                cluster._start_server()
                break
            except PgUnavailableError as exc:
                last = exc
        else:
            raise last or PgUnavailableError("pg_ctl start failed")
        cluster.run(
            "createdb", "-h", "127.0.0.1", "-p", str(cluster.port), "-U", SUPERUSER, DB_NAME
        )
    except BaseException:
        cluster.stop()
        raise
    return cluster


@contextmanager
def private_database(url: str, prefix: str = "t") -> Iterator[str]:
    """A new empty database on ``url``'s server, for tests that must not share the session
    database's tables (others drop and recreate them); dropped at the end (its sessions
    terminated first). Yields its ``postgresql+psycopg://`` URL."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield make_url(url).set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (name,),
            )
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))
