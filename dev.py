#!/usr/bin/env python3
"""The project's two entry points, working on a fresh machine with only Python and pip.

    python dev.py start      install into .venv if needed, then run the product
    python dev.py test       install into .venv (with test extras) if needed, then run pytest
    python dev.py check      the same install, then ruff check and mypy (what CI runs too)

Extra arguments after ``test`` go to pytest (``python dev.py test -k policy``); the suite
or a directory runs on two pytest-xdist workers unless ``-n`` says otherwise; after
``start`` they go to main.py. Only the standard library is used here.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")
STAMP = VENV / ".ss-tools-installed"


def _say(msg: str) -> None:
    print(f"[dev] {msg}", flush=True)


def ensure_venv() -> None:
    if not PY.exists():
        _say(f"creating virtual environment in {VENV}")
        venv.EnvBuilder(with_pip=True, clear=False).create(VENV)
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text().strip() == digest:
        return
    _say("installing the project and its test tools into .venv (first run takes a minute)")
    subprocess.check_call(
        [str(PY), "-m", "pip", "install", "--disable-pip-version-check", "-q", "-e", ".[test]"],
        cwd=ROOT,
    )
    STAMP.write_text(digest)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"start", "test", "check"}:
        print(__doc__)
        return 2
    ensure_venv()
    cmd, rest = argv[0], argv[1:]
    env = dict(os.environ)
    if cmd == "start":
        env.setdefault("SS_TOOLS_DEV", "1")
        return subprocess.call([str(PY), "main.py", "start", *rest], cwd=ROOT, env=env)
    if cmd == "check":  # lint and types, as CI runs them
        lint = subprocess.call(
            [str(PY), "-m", "ruff", "check", "app", "components", "tests", "bench"], cwd=ROOT
        )
        types = subprocess.call([str(PY), "-m", "mypy"], cwd=ROOT)
        return lint or types
    return subprocess.call([str(PY), "-m", "pytest", *_workers(rest), *rest], cwd=ROOT, env=env)


#: arguments after which the run stays in one process
_ONE_PROCESS = ("-n", "--numprocesses", "--pdb", "--trace", "no:xdist", "--co", "--collect-only")


def _workers(args: list[str]) -> list[str]:
    """Two pytest-xdist workers (``-n 2 --dist loadgroup``: the tests of one real part —
    Superset, PostgreSQL, the local model — stay on one worker, so each starts once) for a
    run of the suite or of directories; none when the arguments name test files or
    nodes, ask for a debugger, or set the workers themselves."""
    if (os.cpu_count() or 1) < 2:
        return []
    for arg in args:
        if arg.startswith(_ONE_PROCESS) or arg.endswith(".py") or "::" in arg:
            return []
    return ["-n", "2", "--dist", "loadgroup"]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
