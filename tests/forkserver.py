"""Start the product's test processes from one that imported the product already.

Each ``python main.py`` the suite starts (restarts, replicas, the MCP door, the browser
and LLM tests: about 23 a run) took 3.4 s to import NiceGUI, LangGraph, the MCP SDK and
the app before it served. A test process that starts servers runs this module once
(``python -m tests.forkserver``): it imports all that, then forks one child per server
asked for. The child is a process of its own, as ``python main.py`` was: its own pid and
session, its output in its own log, the environment the test gave it, the entry run as
``__main__``; a signal or a crash ends it alone. A start takes about 0.3 s.

What a fork shares, and why it is safe here: the imported modules only (nothing here
starts a thread, an event loop or a connection: :func:`_check_forkable` makes sure before
every fork); the interpreter's start-up options (the suite's: unbuffered output, the
same hash seed for all children); ``random``'s state, which Python reseeds in a child.
The product reads its settings from the environment when ``main()`` runs, after the fork.

Protocol, one JSON line each way on stdin / stdout:
``{"argv": [...], "env": {...}, "cwd": "...", "log": "..."}`` -> ``{"pid": N}``;
``{"status": N}`` -> ``{"exited": bool, "code": int | null}`` (a negative code: the
signal). The server exits when its stdin closes (its test process ended).
"""

from __future__ import annotations

import atexit
import importlib
import json
import os
import runpy
import signal
import sys
import threading
import traceback
from typing import Any

#: what ``main.main()`` and the app factory import (the child imports anything else)
WARM = (
    "main",
    "nicegui",
    "nicegui.ui",
    "app.web",
    "app.parts",
    "app.bootstrap",
    "app.reasoning",
    "app.sandbox.service",
    "app.tasks.sweep",
    "app.planner",
    "tests.mcp.fake_gateway",
)

_exited: dict[int, int] = {}


def _reap(*_: Any) -> None:
    """SIGCHLD: collect every child that ended (no zombies), keeping its exit code."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _exited[pid] = os.waitstatus_to_exitcode(status)


def _check_forkable() -> None:
    if threading.active_count() != 1:
        names = [t.name for t in threading.enumerate()]
        raise RuntimeError(f"the fork server has threads ({names}): a fork would copy locks")


def _child(request: dict[str, Any]) -> None:
    """Become the asked-for process; never returns."""
    code = 1
    try:
        os.setsid()  # a session of its own, as start_new_session=True gave it
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(log)
        os.close(null)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        argv = list(request["argv"])
        if argv[0] == "-m":
            sys.argv = [argv[1], *argv[2:]]
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = argv
            runpy.run_path(argv[0], run_name="__main__")
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        traceback.print_exc()
    finally:
        _exit_as_the_interpreter_does(code)


def _exit_as_the_interpreter_does(code: int) -> None:
    """What ``python main.py`` does when its main module returns: wait for the threads
    that are not daemons, run the exit handlers, flush; then end without running the fork
    server's own interpreter shutdown a second time."""
    for step in (threading._shutdown, atexit._run_exitfuncs):  # type: ignore[attr-defined]
        try:
            step()
        except BaseException:
            traceback.print_exc()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def _answer(request: dict[str, Any]) -> dict[str, Any]:
    if "status" in request:
        pid = int(request["status"])
        _reap()
        return {"exited": pid in _exited, "code": _exited.get(pid)}
    _check_forkable()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        _child(request)
    return {"pid": pid}


def main() -> None:
    for name in WARM:
        importlib.import_module(name)
    signal.signal(signal.SIGCHLD, _reap)
    _check_forkable()
    replies = sys.stdout
    print(json.dumps({"ready": True}), file=replies, flush=True)
    for line in sys.stdin:
        try:
            reply = _answer(json.loads(line))
        except Exception as exc:  # said to the test process, which raises it there
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(reply), file=replies, flush=True)


if __name__ == "__main__":
    main()
