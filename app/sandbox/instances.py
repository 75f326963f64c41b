"""Start and stop sandbox Superset instances (``dev``, ``prod``, …) on loopback ports.

Every instance gets its own home (``<base_dir>/<env_id>``) with a *copy* of a prepared
metadata DB — the seeded template when one is cached, else the bootstrapped one — a copy
of the demo ``sales.db``, its ``superset_config.py`` and ``superset.log``. It runs
``superset run -h 127.0.0.1 -p PORT --with-threads`` in its own process group.
``<base_dir>/sandbox.json`` records ids, ports and pids so ``stop`` and ``status``
work from another process.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import httpx

from app.sandbox.common import (
    ADMIN_USERNAME,
    Below,
    CachePaths,
    Progress,
    SandboxError,
    Stoppable,
    step,
    tail,
    write_private,
)
from app.sandbox.data import ensure_sales_db
from app.sandbox.entry import config_block, cookie_name, talisman_on
from app.sandbox.install import admin_password, ensure_bootstrapped, secret_key
from app.sandbox.processes import HOST, free_port, is_superset_process, terminate_group
from app.sandbox.superset_config import superset_env, write_superset_config

HEALTH_TIMEOUT_S = 120.0
#: (env id, its home) -> lines added to that instance's superset_config.py
ExtraConfig = Callable[[str, Path], str]
STATE_FILE = "sandbox.json"
#: The first line of an environments file the sandbox wrote (and may overwrite).
ENV_FILE_MARKER = "# Local Superset sandbox written by"
ENV_NAMES = {"dev": "Development", "staging": "Staging", "prod": "Production"}


@dataclass
class SandboxEnv:
    """One running instance, as the environments file and the tests see it."""

    id: str
    name: str
    url: str
    username: str
    password: str = field(repr=False)
    tier: str
    home: Path
    port: int
    pid: int

    log_file = Below("home", "superset.log")
    #: The instance's own copy of the demo data (its "Sales" DB connection).
    data_file = Below("home", "sales.db")

    def is_running(self) -> bool:
        return is_superset_process(self.pid)

    def is_healthy(self, timeout: float = 2.0) -> bool:
        try:
            return httpx.get(f"{self.url}/health", timeout=timeout).status_code == 200
        except httpx.HTTPError:
            return False


class Sandbox(Stoppable):
    """Running sandbox instances; a context manager that stops them on exit."""

    def __init__(
        self,
        environments: list[SandboxEnv],
        base_dir: Path,
        paths: CachePaths,
        *,
        from_seeded_templates: bool = False,
    ) -> None:
        self.environments = environments
        self.base_dir = base_dir
        self.paths = paths
        self.from_seeded_templates = from_seeded_templates
        self._procs: dict[int, subprocess.Popen[bytes]] = {}

    def env(self, env_id: str) -> SandboxEnv:
        for env in self.environments:
            if env.id == env_id:
                return env
        raise KeyError(env_id)

    @property
    def state_file(self) -> Path:
        return self.base_dir / STATE_FILE

    def save_state(self) -> None:
        rows = [
            {k: str(v) if isinstance(v, Path) else v for k, v in asdict(env).items()}
            for env in self.environments
        ]
        for row in rows:
            row.pop("password")
        state = {"cache_root": str(self.paths.root), "environments": rows}
        self.state_file.write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, base_dir: Path) -> Sandbox:
        """The sandbox recorded in ``base_dir/sandbox.json`` (running or not)."""
        state_file = base_dir / STATE_FILE
        try:
            state = json.loads(state_file.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise SandboxError(f"no sandbox recorded in {base_dir} (start one first)") from exc
        except json.JSONDecodeError as exc:
            raise SandboxError(f"{state_file} is not valid JSON: {exc}") from exc
        paths = CachePaths(Path(state["cache_root"]))
        password = admin_password(paths)
        envs = [
            SandboxEnv(**{**row, "home": Path(row["home"]), "password": password})
            for row in state["environments"]
        ]
        seeded = all(paths.seeded_db(e.id).exists() for e in envs)
        return cls(envs, base_dir, paths, from_seeded_templates=seeded)

    def write_environments_file(self, path: Path, *, person: Iterable[str] = ()) -> Path:
        """Write the ``[[environment]]`` TOML for these instances (mode 600: it has
        passwords); the ``person`` ones act as each person (``identity = "person"``: no
        service credentials, every person connects their own Superset account)."""
        people = set(person)
        lines = [f"{ENV_FILE_MARKER} `python -m app.sandbox`; passwords are local.", ""]
        for env in self.environments:
            lines += [
                "[[environment]]",
                f"id = {json.dumps(env.id)}",
                f"name = {json.dumps(env.name)}",
                f"url = {json.dumps(env.url)}",
            ]
            if env.id in people:
                lines.append('identity = "person"')
            else:
                lines += [
                    f"username = {json.dumps(env.username)}",
                    f"password = {json.dumps(env.password)}",
                ]
            lines += [f"tier = {json.dumps(env.tier)}", ""]
        return write_private(Path(path), "\n".join(lines))

    def stop(self, progress: Progress | None = None) -> None:
        """Terminate every instance's process group and wait until it is gone."""
        for env in self.environments:
            proc = self._procs.pop(env.pid, None)
            if proc is None and not env.is_running():
                continue
            terminate_group(env.pid, proc)
            if progress is not None:
                progress(f"[sandbox] stopped {env.id} (pid {env.pid})")
        self.state_file.unlink(missing_ok=True)


def _prepare_home(
    env_id: str,
    base_dir: Path,
    paths: CachePaths,
    template_db: Path,
    extra_config: ExtraConfig | None = None,
) -> Path:
    home = base_dir / env_id
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    shutil.copyfile(template_db, home / "superset.db")
    shutil.copyfile(ensure_sales_db(paths.sales_db), home / "sales.db")
    extra = config_block(home)
    if extra_config is not None:
        extra += "\n" + extra_config(env_id, home)
    write_superset_config(
        home,
        secret_key=secret_key(paths),
        cookie_name=cookie_name(env_id),
        talisman=talisman_on(env_id),
        extra=extra,
    )
    return home


def _wait_healthy(env: SandboxEnv, proc: subprocess.Popen[bytes], deadline: float) -> None:
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SandboxError(
                f"Superset {env.id} exited with {proc.returncode} during start-up; "
                f"log {env.log_file}:\n{tail(env.log_file)}"
            )
        if env.is_healthy(timeout=1.0):
            return
        time.sleep(0.25)
    raise SandboxError(
        f"Superset {env.id} did not answer {env.url}/health within {HEALTH_TIMEOUT_S:.0f} s; "
        f"log {env.log_file}:\n{tail(env.log_file)}"
    )


def start_sandbox(
    envs: Iterable[str] = ("dev", "prod"),
    base_dir: Path | None = None,
    progress: Progress = print,
    *,
    paths: CachePaths | None = None,
    health_timeout_s: float = HEALTH_TIMEOUT_S,
    extra_config: ExtraConfig | None = None,
) -> Sandbox:
    """Install if needed, then start one instance per env id and wait for ``/health``.

    Instances start from the seeded template DBs when cached (see ``seed.py``), else
    from the bootstrapped one; call :func:`app.sandbox.seed.seed_sandbox` afterwards.
    ``extra_config(env_id, home)`` may add lines to an instance's ``superset_config.py``
    (and put files in its home).
    """
    paths = paths or CachePaths.default()
    env_ids = list(dict.fromkeys(envs))
    base_dir = Path(base_dir or paths.default_run_dir).expanduser().resolve()
    if (base_dir / STATE_FILE).exists():
        previous = Sandbox.load(base_dir)
        alive = [e.id for e in previous.environments if e.is_running()]
        if alive:
            raise SandboxError(f"sandbox in {base_dir} already runs {alive}; stop it first")
    base_db = ensure_bootstrapped(progress, paths)
    seeded = all(paths.seeded_db(e).exists() for e in env_ids)
    password = admin_password(paths)
    sandbox = Sandbox([], base_dir, paths, from_seeded_templates=seeded)
    deadline = time.monotonic() + health_timeout_s
    try:
        with step(progress, f"starting {', '.join(env_ids)} in {base_dir}"):
            for env_id in env_ids:
                template = paths.seeded_db(env_id) if seeded else base_db
                home = _prepare_home(env_id, base_dir, paths, template, extra_config)
                port = free_port()
                log = open(home / "superset.log", "ab")  # the child keeps its own copy
                with log:
                    proc = subprocess.Popen(
                        [paths.superset_bin, "run", "-h", HOST, "-p", str(port), "--with-threads"],
                        cwd=home,
                        env=superset_env(dict(os.environ), venv=paths.venv, home=home),
                        stdin=subprocess.DEVNULL,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                env = SandboxEnv(
                    id=env_id,
                    name=ENV_NAMES.get(env_id, env_id),
                    url=f"http://{HOST}:{port}",
                    username=ADMIN_USERNAME,
                    password=password,
                    tier=env_id if env_id in ENV_NAMES else "dev",
                    home=home,
                    port=port,
                    pid=proc.pid,
                )
                sandbox.environments.append(env)
                sandbox._procs[proc.pid] = proc
            sandbox.save_state()
            for env in sandbox.environments:
                _wait_healthy(env, sandbox._procs[env.pid], deadline)
    except BaseException:
        sandbox.stop()
        raise
    for env in sandbox.environments:
        progress(f"[sandbox] {env.id}: {env.url} (pid {env.pid}, home {env.home})")
    return sandbox
