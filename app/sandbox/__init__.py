"""Local Apache Superset 6.1.0 sandbox: install, start, seed, stop (no Docker).

Command line: ``python -m app.sandbox {install,start,stop,status,seed,env-file}``
(see :mod:`app.sandbox.__main__`). Python API::

    from app.sandbox import ensure_installed, start_sandbox, seed_sandbox

    with start_sandbox(envs=("dev", "prod"), base_dir=tmp) as sandbox:
        seed_sandbox(sandbox)
        sandbox.write_environments_file(tmp / "environments.toml")
        sandbox.env("dev").url

    # the app's start: reuse a healthy recorded sandbox or start + seed one
    sandbox, started_here = ensure_sandbox(env_file=Path("environments.toml"))
"""

from app.sandbox.common import CachePaths, SandboxError
from app.sandbox.install import ensure_bootstrapped, ensure_installed, is_installed
from app.sandbox.instances import Sandbox, SandboxEnv, start_sandbox
from app.sandbox.seed import EnvSeed, SeedReport, check_chart, seed_sandbox
from app.sandbox.service import ensure_sandbox

__all__ = [
    "CachePaths",
    "EnvSeed",
    "Sandbox",
    "SandboxEnv",
    "SandboxError",
    "SeedReport",
    "check_chart",
    "ensure_bootstrapped",
    "ensure_installed",
    "ensure_sandbox",
    "is_installed",
    "seed_sandbox",
    "start_sandbox",
]
