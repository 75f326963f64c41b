"""The one call the app's start command needs: a running, seeded sandbox.

:func:`ensure_sandbox` reuses the sandbox recorded in ``base_dir`` when every instance
answers ``/health`` (e.g. one started earlier with ``python -m app.sandbox start``), else
clears what is left of it and starts and seeds a new one. It returns the sandbox and
whether this call started it, so the caller stops only what it started.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from app.sandbox.common import CachePaths, Progress, SandboxError
from app.sandbox.instances import STATE_FILE, Sandbox, start_sandbox
from app.sandbox.seed import seed_sandbox


def _reusable(base_dir: Path, env_ids: list[str], progress: Progress) -> Sandbox | None:
    if not (base_dir / STATE_FILE).exists():
        return None
    recorded = Sandbox.load(base_dir)
    if [e.id for e in recorded.environments] == env_ids and all(
        e.is_running() and e.is_healthy() for e in recorded.environments
    ):
        progress(f"[sandbox] reusing the running sandbox in {base_dir}")
        return recorded
    progress(f"[sandbox] clearing a stale or different sandbox in {base_dir}")
    recorded.stop(progress)
    return None


def ensure_sandbox(
    envs: Iterable[str] = ("dev", "prod"),
    base_dir: Path | None = None,
    progress: Progress = print,
    *,
    env_file: Path | None = None,
    paths: CachePaths | None = None,
) -> tuple[Sandbox, bool]:
    """A healthy, seeded sandbox and ``True`` when this call started it.

    Writes the environments file to ``env_file`` when given. Raises SandboxError.
    """
    paths = paths or CachePaths.default()
    env_ids = list(dict.fromkeys(envs))
    base_dir = Path(base_dir or paths.default_run_dir).expanduser().resolve()
    sandbox = _reusable(base_dir, env_ids, progress)
    started = sandbox is None
    if sandbox is None:
        sandbox = start_sandbox(env_ids, base_dir, progress, paths=paths)
    try:
        seed_sandbox(sandbox, progress)
        if env_file is not None:
            sandbox.write_environments_file(env_file)
    except SandboxError:
        if started:
            sandbox.stop(progress)
        raise
    return sandbox, started
