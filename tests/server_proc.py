"""Run the real product as a subprocess (``python main.py``) on a free loopback port, for
tests that need a real process: restarts, several replicas, a real browser.

The process is forked from :mod:`tests.forkserver`, which imported the product once for
this test process (a start then takes about 0.3 s instead of 3.4 s; this process's side
of it is :mod:`tests.forkserver_client`); set ``SS_TOOLS_TEST_FORKSERVER=0`` to start
each as ``python main.py`` instead."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx

from app.cli import users_main
from app.sandbox.processes import end_process, free_port  # one loopback free-port helper for all
from app.settings import Settings
from tests.forkserver_client import FORKSERVER, ROOT, Forked, clean_environ, forkserver_on

__all__ = ["UNREACHABLE_DEV", "Server", "add_user", "cli", "free_port", "python", "server_env"]

#: an environments.toml with one dev environment nothing answers on: for servers whose
#: tests need no Superset (the offline planner's turns, maintenance windows, sign-in)
UNREACHABLE_DEV = """
[[environment]]
id = "dev"
name = "Development"
url = "http://127.0.0.1:9"
username = "admin"
password = "unused"
tier = "dev"
"""


def server_env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = clean_environ()
    env.update(
        {
            "SS_TOOLS_DEV": "1",
            "SS_TOOLS_SANDBOX": "0",
            "SS_TOOLS_DATA_DIR": str(data_dir),
            "SS_TOOLS_JWT_SECRET": "test-secret-for-subprocess-servers-0123456789",
            "SS_TOOLS_ENVIRONMENTS_FILE": str(data_dir / "environments.toml"),
            "SS_TOOLS_SCRYPT_N": "16",  # cheap password hashes, as in the suite's own process
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra)
    return env


def add_user(env: dict[str, str], name: str, role: str, password: str) -> None:
    """``main.py users add NAME --role ROLE --password PW`` for the product ``env``
    configures, run in this process (the same code, without starting a Python process;
    the real command keeps its own tests: tests/auth/test_cli.py, ``Live.users``)."""
    settings = Settings(
        data_dir=Path(env["SS_TOOLS_DATA_DIR"]),
        database_url=env.get("SS_TOOLS_DATABASE_URL") or None,
        scrypt_n=int(env.get("SS_TOOLS_SCRYPT_N", "16")),
    )
    code = users_main(["add", name, "--role", role, "--password", password], settings=settings)
    if code != 0:
        raise RuntimeError(f"users add {name} failed with exit code {code}")


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``python main.py ARGS`` as a process of its own, in ``env``."""
    return python(env, "main.py", *args)


def python(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in the repository as a process of its own, in ``env``; its output
    captured as text, a failure raised."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=env,
        text=True,
        capture_output=True,
        timeout=120,
        check=True,
    )


class Server:
    def __init__(
        self, env: dict[str, str], port: int | None = None, *, argv: Sequence[str] = ("main.py",)
    ) -> None:
        self.argv = tuple(argv)  # what ``python`` runs: main.py, or a test entry module
        self.port = port or free_port()
        self.env = dict(env, SS_TOOLS_PORT=str(self.port), SS_TOOLS_HOST="127.0.0.1")
        self.url = f"http://127.0.0.1:{self.port}"
        log_dir = Path(self.env["SS_TOOLS_DATA_DIR"])
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / f"server-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | Forked | None = None

    def start(self, timeout: float = 60) -> Server:
        if forkserver_on():
            request = {
                "argv": list(self.argv),
                "env": self.env,
                "cwd": str(ROOT),
                "log": str(self.log_path),
            }
            self.proc = Forked(int(FORKSERVER.ask(request, "pid")["pid"]))
        else:
            with self.log_path.open("ab") as log:
                self.proc = subprocess.Popen(
                    [sys.executable, *self.argv],
                    cwd=ROOT,
                    env=self.env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.tail()}")
            try:
                if httpx.get(self.url + "/api/health", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"server did not answer in {timeout}s: {self.tail()}")

    def tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    def stop(self) -> None:
        if self.proc:
            end_process(self.proc, timeout=15)

    @contextlib.contextmanager
    def frozen(self) -> Iterator[None]:
        """The process stopped (SIGSTOP) for the block, then let go on (SIGCONT): a
        replica too busy to answer anything, for as long as the test needs."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)
        try:
            yield
        finally:
            self.proc.send_signal(signal.SIGCONT)

    def kill(self) -> None:
        """Die like a crash: no shutdown handlers."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def token(self, username: str, password: str) -> str:
        r = httpx.post(
            self.url + "/api/auth/token",
            json={"username": username, "password": password},
            timeout=10,
        )
        r.raise_for_status()
        return str(r.json()["access_token"])

    def post(self, path: str, token: str, body: dict[str, Any], timeout: float = 60) -> Any:
        return httpx.post(
            self.url + path,
            json=body,
            timeout=timeout,
            headers={"Authorization": f"Bearer {token}"},
        )

    def get(self, path: str, token: str) -> Any:
        return httpx.get(self.url + path, timeout=30, headers={"Authorization": f"Bearer {token}"})

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
