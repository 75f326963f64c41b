#!/usr/bin/env python3
"""The project's two entry points, working on a fresh machine with only Python and pip.

    python dev.py start      install into .venv if needed, then run the product
    python dev.py test       install into .venv (with test extras) if needed, then run pytest
    python dev.py check      the same install, then ruff check, ruff format --check, mypy and
                             lint-imports (the import contracts in pyproject.toml); what CI
                             runs too

Extra arguments after ``test`` go to pytest (``python dev.py test -k policy``); the suite
or a directory runs as two pytest processes side by side (the tests of the real parts, and
the rest), unless the arguments name files or nodes, ``-m`` or ``-n``; after ``start``
they go to main.py. Only the standard library is used here.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")
STAMP = VENV / ".ss-tools-installed"
#: import-linter's command (``lint-imports``), run by the venv's Python on any platform:
#: it checks ``[tool.importlinter]`` of pyproject.toml, the parts' nevers
LINT_IMPORTS = "import sys; from importlinter.cli import lint_imports_command as c; sys.exit(c())"


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
    # The project's processes keep their bytecode (and pytest its rewritten test modules)
    # in __pycache__: with PYTHONDONTWRITEBYTECODE set, as on some CI images, every test
    # worker and every product process the suite starts compiled the app again (measured:
    # collection 7.7 s -> 4.9 s a worker, a server's imports 4.0 -> 3.5 s of CPU).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if cmd == "start":
        env.setdefault("SS_TOOLS_DEV", "1")
        return subprocess.call([str(PY), "main.py", "start", *rest], cwd=ROOT, env=env)
    if cmd == "check":  # lint, format, types and the import contracts, as CI runs them
        trees = ["app", "components", "tests", "bench"]
        lint = subprocess.call([str(PY), "-m", "ruff", "check", *trees], cwd=ROOT)
        layout = subprocess.call([str(PY), "-m", "ruff", "format", "--check", *trees], cwd=ROOT)
        types = subprocess.call([str(PY), "-m", "mypy"], cwd=ROOT)
        contracts = subprocess.call([str(PY), "-c", LINT_IMPORTS], cwd=ROOT)
        return lint or layout or types or contracts
    shards = _shards(rest)
    if shards is None:
        return subprocess.call([str(PY), "-m", "pytest", *rest], cwd=ROOT, env=env)
    return _run_shards(shards, env)


#: arguments after which the run stays in one process
_ONE_PROCESS = ("-n", "--numprocesses", "--pdb", "--trace", "no:xdist", "--co", "--collect-only")

#: the tests of the slow real parts, each started once in that shard: the Superset sandbox
#: and the local model (Chromium starts in a second or two: its other tests go anywhere)
REAL_PARTS = "superset or llm"


def _shards(args: list[str]) -> list[list[str]] | None:
    """The suite (or directories) as two pytest processes side by side, one per core: the
    tests of the slow real parts (each part started once, in that process) and all the
    others. A run that selects by marker (``-m``, the inner loop) is one shard on two
    pytest-xdist workers. None (one process) on one core, or when the arguments name
    test files or nodes, ask for a debugger, or set xdist workers themselves.

    Why not pytest-xdist's ``--dist loadgroup``: with pytest 9.2 a group's ``@name``
    suffix never reaches the node ids (xdist 3.8 sets ``item._nodeid``, which pytest 9.2
    no longer reads), so both workers started the sandbox and the model."""
    if (os.cpu_count() or 1) < 2:
        return None
    for arg in args:
        if arg.startswith(_ONE_PROCESS) or arg.endswith(".py") or "::" in arg:
            return None
    if any(arg.startswith("-m") for arg in args):
        return [["-n", "2", *args]]
    return [["-m", REAL_PARTS, *args], ["-n", "2", "-m", f"not ({REAL_PARTS})", *args]]


def _lower_priority() -> None:
    """The other shards yield the CPU to the first: the real parts' tests (the local
    model above all) are the longest path, the others fill the gaps on two workers."""
    os.nice(10)


def _run_shards(shards: list[list[str]], env: dict[str, str]) -> int:
    """Run the shards at once: the first prints as it goes, the others' output follows
    when they end. The exit code is pytest's: a failure in any shard fails the run; "no
    tests collected" (5) counts only when no shard collected any."""
    procs = []
    checkout = hashlib.sha256(str(ROOT).encode()).hexdigest()[:8]
    for i, shard in enumerate(shards):
        # one temp dir per checkout and shard, cleared by pytest at the next run (as its
        # own numbered dirs are): a new one per run kept 170 MB each in the temp folder
        basetemp = Path(tempfile.gettempdir()) / f"ss-tools-pytest-{checkout}-{i}"
        out = None if i == 0 else tempfile.TemporaryFile("w+")
        _say(f"shard {i + 1}/{len(shards)}: pytest {' '.join(shard)}")
        cmd = [str(PY), "-m", "pytest", f"--basetemp={basetemp}", *shard]
        nice = _lower_priority if i > 0 and hasattr(os, "nice") else None
        procs.append(
            (
                subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=out, preexec_fn=nice),
                out,
            )
        )
    codes = []
    for i, (proc, out) in enumerate(procs):
        codes.append(proc.wait())
        if out is not None:
            out.seek(0)
            _say(f"shard {i + 1}/{len(shards)} (pytest {' '.join(shards[i])}):")
            sys.stdout.write(out.read())
            sys.stdout.flush()
            out.close()
    _say(f"shard exit codes: {codes}")
    return combined_exit(codes)


def combined_exit(codes: list[int]) -> int:
    """pytest's exit code for the shards together: the first failure; "no tests
    collected" (5) only when no shard collected any."""
    failed = [c for c in codes if c not in (0, 5)]
    if failed:
        return failed[0]
    return 5 if all(c == 5 for c in codes) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
