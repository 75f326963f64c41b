"""The one call the app's start command needs: a running, seeded sandbox.

:func:`ensure_sandbox` reuses the sandbox recorded in ``base_dir`` when every instance
answers ``/health`` (e.g. one started earlier with ``python -m app.sandbox start``), else
clears what is left of it and starts and seeds a new one. It returns the sandbox and
whether this call started it, so the caller stops only what it started.
:func:`local_superset` is that call as ``python main.py start`` makes it (dev tooling: the
product's request path never imports the sandbox).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from app.sandbox import entry
from app.sandbox.common import CachePaths, Progress, SandboxError
from app.sandbox.instances import ENV_FILE_MARKER, STATE_FILE, Sandbox, start_sandbox
from app.sandbox.second_person import PERSON, RLS_CLAUSE, person_password
from app.sandbox.seed import seed_sandbox
from app.settings import Settings

#: the newcomer's sandbox acts as each person on dev (the agent holds no more power than
#: the one who asks), and as the service account on prod
PERSON_ENVS = ("dev",)


def _reusable(base_dir: Path, env_ids: list[str], progress: Progress) -> Sandbox | None:
    if not (base_dir / STATE_FILE).exists():
        return None
    recorded = Sandbox.load(base_dir)
    if [e.id for e in recorded.environments] == env_ids and all(
        e.is_running() and e.is_healthy() and entry.is_installed(e.home)
        for e in recorded.environments
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
    product_url: str | None = None,
    person: Iterable[str] = (),
) -> tuple[Sandbox, bool]:
    """A healthy, seeded sandbox and ``True`` when this call started it.

    Writes the environments file to ``env_file`` when given (``person``: the environments
    that act as each person), and points the instances' "Ask the agent" entry at
    ``product_url`` when given. Raises SandboxError.
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
            sandbox.write_environments_file(env_file, person=person)
        if product_url is not None:
            entry.point_entry({e.id: e.home for e in sandbox.environments}, product_url)
    except SandboxError:
        if started:
            sandbox.stop(progress)
        raise
    return sandbox, started


def local_superset(settings: Settings, progress: Progress = print) -> Sandbox | None:
    """Start (or reuse) the local Superset sandbox so a newcomer sees the real thing;
    returns the sandbox when this call started it (the caller stops it at shutdown).

    Skipped with ``SS_TOOLS_SANDBOX=0``, and when the environments file exists and was not
    written by the sandbox (it is the operator's own: never overwritten). A failure (no
    network for the first install, say) is reported and the product starts without
    environments.
    """
    env_file = Path(settings.environments_file)
    if not settings.sandbox:  # the operator said so: nothing to report
        return None
    if env_file.exists() and not env_file.read_text(errors="replace").startswith(ENV_FILE_MARKER):
        progress(f"[sandbox] skipped: using your environments file {env_file}")
        return None
    progress(
        "[sandbox] preparing a local Superset 6.1 (dev + prod); the first run installs it "
        "(~1–2 min), later runs take seconds. SS_TOOLS_SANDBOX=0 skips this."
    )
    try:
        paths = CachePaths.of(settings)
        sandbox, started = ensure_sandbox(
            ("dev", "prod"),
            env_file=env_file,
            paths=paths,
            progress=progress,
            product_url=entry.product_url(settings.host, settings.port),
            person=PERSON_ENVS,
        )
    except SandboxError as exc:
        progress(
            f"[sandbox] not started: {exc}\n[sandbox] continuing without Superset environments"
        )
        return None
    urls = ", ".join(f"{e.id}={e.url}" for e in sandbox.environments)
    progress(f"[sandbox] running: {urls}; environments file {env_file}")
    progress('[sandbox] its dashboards carry an "Ask the agent" link to this product')
    say_people(paths, progress)
    return sandbox if started else None


def say_people(paths: CachePaths, progress: Progress) -> None:
    """Tell the newcomer who they can be in dev (it acts as each person)."""
    person_password(paths)  # made now, so the file named below exists
    progress(
        f"[sandbox] dev acts as each person: on the agent page, connect your Superset "
        f"account when asked. Superset users: admin (password in {paths.password_file}), "
        f"{PERSON} (sees only {RLS_CLAUSE} of sales; password in "
        f"{paths.root / (PERSON + '-password')})"
    )
