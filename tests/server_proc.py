"""Run the real product as a subprocess (``python main.py``) on a free loopback port, for
tests that need a real process: restarts, several replicas, a real browser."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from app.cli import users_main
from app.sandbox.processes import free_port  # one loopback free-port helper for all
from app.settings import Settings

ROOT = Path(__file__).resolve().parent.parent

__all__ = ["Server", "add_user", "cli", "free_port", "server_env"]


def server_env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SS_TOOLS_", "PYTEST_", "NICEGUI_"))
    }
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
    return subprocess.run(
        [sys.executable, "main.py", *args],
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
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60) -> Server:
        log = self.log_path.open("ab")
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
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)

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
