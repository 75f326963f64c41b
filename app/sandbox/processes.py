"""The sandbox's processes on this machine: a free loopback port, whether a pid is a
Superset process, stopping an instance's whole process group, and ending one process
(:func:`end_process`)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Protocol

HOST = "127.0.0.1"
STOP_TIMEOUT_S = 20.0


def free_port() -> int:
    """A loopback TCP port nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def is_superset_process(pid: int) -> bool:
    """Whether ``pid`` is a running Superset process (its command line names superset)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"superset" in cmdline


def terminate_group(pid: int, proc: subprocess.Popen[bytes] | None) -> None:
    """SIGTERM the process group led by ``pid``, then SIGKILL what is left after a grace
    period; ``proc`` (when this process started it) is reaped."""
    for sig, grace in ((signal.SIGTERM, STOP_TIMEOUT_S), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if proc is not None and proc.poll() is not None:
                # the leader is reaped; make sure the rest of its group is gone too
                try:
                    os.killpg(pid, 0)
                except ProcessLookupError:
                    return
            elif proc is None and not is_superset_process(pid):
                return
            time.sleep(0.1)
    if proc is not None:
        proc.wait(timeout=5)


class Process(Protocol):
    """What :func:`end_process` needs of a process (a ``subprocess.Popen`` has it)."""

    def poll(self) -> int | None: ...
    def terminate(self) -> None: ...
    def kill(self) -> None: ...
    def wait(self, timeout: float | None = None) -> int: ...


def end_process(proc: Process, timeout: float = 10.0, kill_timeout: float = 5.0) -> None:
    """SIGTERM ``proc``, then SIGKILL it when it has not ended within ``timeout`` seconds;
    returns once it is reaped. Nothing happens to a process that has already ended."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=kill_timeout)
