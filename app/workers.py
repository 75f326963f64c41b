"""Work on hostile input in child processes, each job within a deadline.

:func:`app.cpu.off_loop` runs CPU work in a thread: the event loop keeps serving, but a
thread cannot be stopped, and a regex search holds the interpreter's lock for as long as
it runs (``re`` never releases it), so a runaway search in a thread would still freeze
every other request. :class:`ChildWorkers` runs each job in a child process instead:
the loop only waits on a pipe, and a job past its deadline is ended by killing its
process (:class:`WorkerTimeout`; the next job starts a fresh one).

A child is ``argv`` (a Python module's ``main``, see :func:`serve`), spoken to over its
stdin and stdout in frames (a 4-byte length, then the bytes): after it starts it reads
``hello`` and answers one frame when it is ready; then each job is one frame in and one
frame out. At most ``size`` children run; a job beyond them waits its turn. Children
start when a job needs one (:meth:`ChildWorkers.warm` starts the first in the background),
and end with this process (their stdin closes) or :meth:`ChildWorkers.close`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import select
import struct
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from queue import LifoQueue
from typing import IO

log = logging.getLogger(__name__)
_HEADER = struct.Struct(">I")
START_TIMEOUT_S = 120.0  # a child's imports on a busy machine


class WorkerError(RuntimeError):
    """A child could not start, died, or failed its job (the message says which)."""


class WorkerTimeout(TimeoutError):
    """A job ran past its deadline; its child was killed."""


def write_frame(stream: IO[bytes], data: bytes) -> None:
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def read_frame(stream: IO[bytes]) -> bytes | None:
    """The next frame, or None at the end of the stream."""
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        return None
    return stream.read(_HEADER.unpack(head)[0])


def serve(handle: Callable[[bytes], bytes], ready: Callable[[bytes], None]) -> None:
    """A child's main loop: ``ready(hello)``, then ``handle`` each job until stdin ends.
    Anything the child prints goes to stderr: stdout carries the frames only."""
    frames = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    stdin = os.fdopen(0, "rb")
    hello = read_frame(stdin)
    if hello is None:
        return
    ready(hello)
    write_frame(frames, b"ready")
    while (job := read_frame(stdin)) is not None:
        write_frame(frames, handle(job))


class _Child:
    def __init__(self, argv: Sequence[str], hello: bytes, cwd: str | None) -> None:
        self.proc = subprocess.Popen(
            list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=cwd
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin, self.out = self.proc.stdin, self.proc.stdout.fileno()
        try:
            self.ask(hello, time.monotonic() + START_TIMEOUT_S)
        except (WorkerError, WorkerTimeout):
            self.kill()
            raise

    def ask(self, data: bytes, deadline: float) -> bytes:
        try:
            write_frame(self.stdin, data)
        except OSError as exc:  # it died: its stdin is closed
            raise WorkerError(f"the worker process ended ({exc})") from None
        head = self._read(_HEADER.size, deadline)
        return self._read(_HEADER.unpack(head)[0], deadline)

    def _read(self, size: int, deadline: float) -> bytes:
        data = b""
        while len(data) < size:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.out], [], [], left)[0]:
                raise WorkerTimeout("the worker process ran past its deadline")
            chunk = os.read(self.out, size - len(data))
            if not chunk:
                raise WorkerError(f"the worker process ended (exit {self.proc.poll()})")
            data += chunk
        return data

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            with suppress(OSError):  # a pipe to a killed process may not flush
                stream.close()  # type: ignore[union-attr]


class ChildWorkers:
    """At most ``size`` children of ``argv``, each job within its deadline."""

    def __init__(
        self, argv: Sequence[str], *, size: int, hello: bytes = b"", cwd: str | None = None
    ) -> None:
        self._argv, self._hello, self._cwd = tuple(argv), hello, cwd
        # a started child is taken before an empty slot (None: no child yet)
        self._slots: LifoQueue[_Child | None] = LifoQueue()
        for _ in range(size):
            self._slots.put(None)
        self._waits = ThreadPoolExecutor(max_workers=size, thread_name_prefix="ss-tools-worker")
        self._lock = threading.Lock()
        self._children: set[_Child] = set()
        self._started = self._warming = self._broken = False

    def warm(self) -> bool:
        """Whether a child has started; if none has, the first one starts in the
        background (once: a child that cannot start is not tried again here)."""
        with self._lock:
            if self._started or self._warming or self._broken:
                return self._started
            self._warming = True
        self._waits.submit(self._warm)
        return False

    def _warm(self) -> None:
        child = self._slots.get()
        try:
            if child is None:
                child = self._start()
        except (WorkerError, WorkerTimeout) as exc:
            log.warning("a worker process could not start: %s", exc)
            with self._lock:
                self._broken = True
        finally:
            self._slots.put(child)
            with self._lock:
                self._warming = False

    async def call(self, job: bytes, timeout: float) -> bytes:
        """The child's answer to ``job``; :class:`WorkerTimeout` past ``timeout`` seconds
        (of the job, not of the wait for a free child), :class:`WorkerError` if it failed.
        Cancelled, the job still ends within its deadline; its answer is dropped."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._waits, self._call, job, timeout)

    def _call(self, job: bytes, timeout: float) -> bytes:
        child = self._slots.get()
        try:
            if child is None or child.proc.poll() is not None:
                child = self._start()
            return child.ask(job, time.monotonic() + timeout)
        except (WorkerTimeout, WorkerError):
            if child is not None:
                self._forget(child)
                child = None
            raise
        finally:
            self._slots.put(child)

    def _start(self) -> _Child:
        child = _Child(self._argv, self._hello, self._cwd)
        with self._lock:
            self._children.add(child)
            self._started = True
        return child

    def _forget(self, child: _Child) -> None:
        with self._lock:
            self._children.discard(child)
        child.kill()

    def close(self) -> None:
        """End every child (a job waiting on one gets :class:`WorkerError`)."""
        with self._lock:
            children, self._children = list(self._children), set()
        for child in children:
            child.kill()
        self._waits.shutdown(wait=False)
