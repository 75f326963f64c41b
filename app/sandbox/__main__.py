"""``python -m app.sandbox`` — a local Apache Superset 6.1.0 for development and demos.

Commands::

    python -m app.sandbox install            # venv + Superset (~1 min, ~800 MB, once) and the
                                             # bootstrapped metadata DB (~25 s, once)
    python -m app.sandbox start [--envs dev,prod] [--dir DIR] [--out FILE] [--no-seed]
                                             # start instances on free 127.0.0.1 ports (or
                                             # reuse healthy running ones), seed the demo
                                             # objects, write the environments file; the
                                             # instances keep running after the command
    python -m app.sandbox status [--dir DIR] # pid, URL and /health of each instance
    python -m app.sandbox seed [--dir DIR]   # (re)seed running instances; idempotent
    python -m app.sandbox env-file [--dir DIR] [--out FILE]
                                             # write the [[environment]] TOML for them
    python -m app.sandbox stop [--dir DIR]   # terminate them and wait

Paths: the cache is ``SS_TOOLS_SANDBOX_DIR`` (default ``~/.cache/ss-tools/superset-6.1.0``:
``venv/``, ``templates/``, ``data/sales.db``, ``admin-password``); instances live in
``<cache>/run/<env>`` unless ``--dir`` says otherwise; the environments file goes to
``SS_TOOLS_ENVIRONMENTS_FILE`` (default ``./environments.toml``) unless ``--out``.
The admin user is ``admin`` with the generated password in ``<cache>/admin-password``.

Warm path: the first seed snapshots each instance's metadata DB into
``templates/seeded-v<N>-<env>/``; later starts copy those instead of bootstrapping and
seeding again (start + seed ≈ 6 s instead of ≈ 35 s).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.sandbox.common import CachePaths, SandboxError
from app.sandbox.install import ensure_bootstrapped
from app.sandbox.instances import Sandbox, start_sandbox
from app.sandbox.seed import seed_sandbox
from app.sandbox.service import PERSON_ENVS, ensure_sandbox, say_people
from app.settings import Settings


def _run_dir(args: argparse.Namespace) -> Path:
    if args.dir:
        return Path(args.dir).expanduser().resolve()
    return CachePaths.default().default_run_dir


def _env_file(args: argparse.Namespace) -> Path:
    return Path(args.out) if args.out else Path(Settings().environments_file)


def cmd_install(args: argparse.Namespace) -> int:
    ensure_bootstrapped(print)
    print(f"[sandbox] ready in {CachePaths.default().root}")
    return 0


def cmd_start(args: argparse.Namespace) -> int:
    envs = [e.strip() for e in args.envs.split(",") if e.strip()]
    if args.no_seed:
        sandbox = start_sandbox(envs=envs, base_dir=_run_dir(args), progress=print)
        path = sandbox.write_environments_file(_env_file(args))
    else:
        path = _env_file(args)
        sandbox, _started = ensure_sandbox(
            envs, _run_dir(args), print, env_file=path, person=PERSON_ENVS
        )
        say_people(sandbox.paths, print)
    print(f"[sandbox] environments file: {path}")
    print(f"[sandbox] stop with: python -m app.sandbox stop --dir {sandbox.base_dir}")
    return 0


def cmd_stop(args: argparse.Namespace) -> int:
    Sandbox.load(_run_dir(args)).stop(print)
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    sandbox = Sandbox.load(_run_dir(args))
    healthy = True
    for env in sandbox.environments:
        running, ok = env.is_running(), env.is_healthy()
        healthy &= ok
        state = "healthy" if ok else ("running, /health failing" if running else "not running")
        print(f"{env.id:8} {env.url:28} pid {env.pid:<8} {state}  (log {env.log_file})")
    return 0 if healthy else 1


def cmd_seed(args: argparse.Namespace) -> int:
    seed_sandbox(Sandbox.load(_run_dir(args)), print)
    return 0


def cmd_env_file(args: argparse.Namespace) -> int:
    path = Sandbox.load(_run_dir(args)).write_environments_file(_env_file(args))
    print(f"[sandbox] environments file: {path}")
    return 0


COMMANDS = {
    "install": cmd_install,
    "start": cmd_start,
    "stop": cmd_stop,
    "status": cmd_status,
    "seed": cmd_seed,
    "env-file": cmd_env_file,
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m app.sandbox",
        description="Local Apache Superset 6.1.0 sandbox (dev + prod on 127.0.0.1).",
        epilog="See the module docstring of app/sandbox/__main__.py for details.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        p = sub.add_parser(name)
        if name != "install":
            p.add_argument("--dir", help="instances directory (default <cache>/run)")
        if name in {"start", "env-file"}:
            p.add_argument("--out", help="environments file (default from settings)")
        if name == "start":
            p.add_argument("--envs", default="dev,prod", help="comma-separated env ids")
            p.add_argument("--no-seed", action="store_true", help="start without seeding")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except SandboxError as exc:
        print(f"[sandbox] error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
