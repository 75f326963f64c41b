"""Run the real product as a subprocess (``python main.py``) on a free loopback port, for
tests that need a real process: restarts, several replicas, a real browser.

The process is forked from :mod:`tests.forkserver`, which imported the product once for
this test process (a start then takes about 0.3 s instead of 3.4 s); set
``SS_TOOLS_TEST_FORKSERVER=0`` to start each as ``python main.py`` instead."""

from __future__ import annotations

import atexit
import contextlib
import functools
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

import httpx

from app.cli import users_main
from app.sandbox.processes import end_process, free_port  # one loopback free-port helper for all
from app.settings import Settings

ROOT = Path(__file__).resolve().parent.parent

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


def _clean_environ() -> dict[str, str]:
    """This process's environment without the suite's own settings (``SS_TOOLS_``,
    ``PYTEST_``, ``NICEGUI_``): what a product process the suite starts begins from."""
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SS_TOOLS_", "PYTEST_", "NICEGUI_"))
    }


def server_env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = _clean_environ()
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


class _ForkServer:
    """This test process's fork server (started on first use, ended with the process)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[str] | None = None
        atexit.register(self.close)

    def _pipe(self) -> subprocess.Popen[str]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                [sys.executable, "-u", "-m", "tests.forkserver"],
                cwd=ROOT,
                env=dict(_clean_environ(), PYTHONUNBUFFERED="1"),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            self._read(self._proc, "ready")
        return self._proc

    @staticmethod
    def _read(proc: subprocess.Popen[str], key: str) -> dict[str, Any]:
        out: IO[str] | None = proc.stdout
        assert out is not None
        for line in out:  # anything an import printed comes before the first answer
            if line.startswith("{"):
                reply: dict[str, Any] = json.loads(line)
                if "error" in reply:
                    raise RuntimeError(f"fork server: {reply['error']}")
                if key in reply:
                    return reply
        raise RuntimeError(f"the fork server ended (exit code {proc.wait()})")

    def ask(self, request: dict[str, Any], key: str) -> dict[str, Any]:
        with self._lock:
            proc = self._pipe()
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
            return self._read(proc, key)

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.stdin is not None:
            proc.stdin.close()  # it ends when its input does
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


_FORKSERVER = _ForkServer()


@functools.cache
def _pidfds() -> bool:
    """Can this kernel watch a process that is not our child (Linux 5.3+)?"""
    try:
        os.close(os.pidfd_open(os.getpid()))
    except (AttributeError, OSError):
        return False
    return True


def _forkserver_on() -> bool:
    return os.environ.get("SS_TOOLS_TEST_FORKSERVER", "1") != "0" and _pidfds()


class Forked:
    """A process of the fork server, with the part of ``subprocess.Popen`` that
    :class:`Server` uses (it is the fork server's child: its end is seen on a pidfd)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._fd: int | None = None
        with contextlib.suppress(ProcessLookupError):  # else it ended (and was reaped) at once
            self._fd = os.pidfd_open(pid)

    def _ended(self, timeout: float | None) -> bool:
        if self._fd is None:
            return True
        ready, _, _ = select.select([self._fd], [], [], timeout)
        return bool(ready)

    def _collect(self) -> int:
        for _ in range(200):  # the fork server reaps it on SIGCHLD: at once, as a rule
            reply = _FORKSERVER.ask({"status": self.pid}, "exited")
            if reply["exited"]:
                self.returncode = int(reply["code"])
                break
            time.sleep(0.01)
        else:
            self.returncode = -1  # ended, but its code was not seen
        if self._fd is not None:
            os.close(self._fd)
        return self.returncode

    def poll(self) -> int | None:
        if self.returncode is None and self._ended(0):
            self._collect()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if not self._ended(timeout):
                raise subprocess.TimeoutExpired(f"pid {self.pid}", timeout or 0)
            self._collect()
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: signal.Signals) -> None:
        if self.poll() is None and self._fd is not None:
            with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
                signal.pidfd_send_signal(self._fd, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


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
        if _forkserver_on():
            request = {
                "argv": list(self.argv),
                "env": self.env,
                "cwd": str(ROOT),
                "log": str(self.log_path),
            }
            self.proc = Forked(int(_FORKSERVER.ask(request, "pid")["pid"]))
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
