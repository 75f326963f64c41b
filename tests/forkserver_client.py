"""This test process's side of the fork server (:mod:`tests.forkserver`): the server,
started on first use and ended with the process (``FORKSERVER``), and one process it
forked (:class:`Forked`, the part of ``subprocess.Popen`` that ``tests.server_proc.Server``
uses); ``forkserver_on`` says whether servers start that way (``SS_TOOLS_TEST_FORKSERVER=0``
or a kernel without pidfds: as ``python main.py``), ``clean_environ`` what a product
process the suite starts begins from."""

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
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent


def clean_environ() -> dict[str, str]:
    """This process's environment without the suite's own settings (``SS_TOOLS_``,
    ``PYTEST_``, ``NICEGUI_``): what a product process the suite starts begins from."""
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SS_TOOLS_", "PYTEST_", "NICEGUI_"))
    }


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
                env=dict(clean_environ(), PYTHONUNBUFFERED="1"),
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


FORKSERVER = _ForkServer()


@functools.cache
def _pidfds() -> bool:
    """Can this kernel watch a process that is not our child (Linux 5.3+)?"""
    try:
        os.close(os.pidfd_open(os.getpid()))
    except (AttributeError, OSError):
        return False
    return True


def forkserver_on() -> bool:
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
            reply = FORKSERVER.ask({"status": self.pid}, "exited")
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
