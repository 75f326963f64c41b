"""Install Superset 6.1.0 into its own cached venv and bootstrap one metadata DB.

* :func:`ensure_installed` creates ``<sandbox_dir>/venv`` with the interpreter the app
  runs on (``sys.executable -m venv``) and ``pip install -c constraints-6.1.0.txt
  apache-superset==6.1.0 flask-caching==2.3.1 rich cachetools``. A stamp file records a
  finished install; a venv without a stamp is a broken one and is rebuilt.
* :func:`ensure_bootstrapped` runs ``superset db upgrade``, ``superset fab create-admin``
  (user ``admin``, a generated password kept in ``<sandbox_dir>/admin-password``, mode
  600) and ``superset init`` once, into ``templates/base/superset.db``. Instances get a
  copy of that file; nothing is bootstrapped twice.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from app.sandbox.common import (
    ADMIN_USERNAME,
    CONSTRAINTS_FILE,
    EXTRA_PINS,
    SUPERSET_VERSION,
    CachePaths,
    Progress,
    SandboxError,
    read_or_create_secret,
    step,
    tail,
)
from app.sandbox.superset_config import superset_env, write_superset_config

INSTALL_TIMEOUT_S = 1800
BOOTSTRAP_TIMEOUT_S = 600


def _stamp_value() -> str:
    digest = hashlib.sha256(CONSTRAINTS_FILE.read_bytes()).hexdigest()[:16]
    pins = " ".join(EXTRA_PINS)
    return f"apache-superset=={SUPERSET_VERSION} constraints={digest} extra={pins}\n"


@contextmanager
def cache_lock(paths: CachePaths) -> Iterator[None]:
    """An exclusive lock on the cache dir, so two processes never install at once."""
    paths.root.mkdir(parents=True, exist_ok=True)
    with open(paths.root / ".lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def run_logged(
    cmd: Sequence[str | Path],
    *,
    log: Path,
    env: dict[str, str] | None,
    timeout: float,
    secret: str | None = None,
) -> None:
    """Run ``cmd`` with its output appended to ``log``; raise SandboxError with the tail.

    ``secret`` (e.g. a password argument) is masked in the log and in the error.
    """
    shown = " ".join("***" if secret and str(c) == secret else str(c) for c in cmd)
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a", encoding="utf-8") as out:
        out.write(f"$ {shown}\n")
        out.flush()
        try:
            proc = subprocess.run(
                [str(c) for c in cmd],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise SandboxError(f"{cmd[0]} timed out after {timeout:.0f} s; log {log}") from exc
        except OSError as exc:
            raise SandboxError(f"cannot run {cmd[0]}: {exc}") from exc
    if proc.returncode != 0:
        raise SandboxError(
            f"`{shown[:120]}` exited with {proc.returncode}; log {log}:\n{tail(log)}"
        )


def is_installed(paths: CachePaths | None = None) -> bool:
    paths = paths or CachePaths.default()
    return (
        paths.install_stamp.exists()
        and paths.install_stamp.read_text(encoding="utf-8") == _stamp_value()
        and paths.superset_bin.exists()
    )


def ensure_installed(progress: Progress = print, paths: CachePaths | None = None) -> Path:
    """Install Superset into the cached venv unless the stamp says it is there.

    Returns the venv directory. Raises SandboxError (with the pip log tail) on failure.
    """
    paths = paths or CachePaths.default()
    with cache_lock(paths):
        if is_installed(paths):
            progress(f"[sandbox] Superset {SUPERSET_VERSION} already installed in {paths.venv}")
            return paths.venv
        log = paths.root / "install.log"
        log.unlink(missing_ok=True)
        if paths.venv.exists():
            progress(f"[sandbox] removing an unfinished venv at {paths.venv}")
            shutil.rmtree(paths.venv)
        paths.install_stamp.unlink(missing_ok=True)
        with step(progress, f"creating venv {paths.venv} ({sys.version.split()[0]})"):
            run_logged([sys.executable, "-m", "venv", paths.venv], log=log, env=None, timeout=300)
        pip = [str(paths.python_bin), "-m", "pip", "--disable-pip-version-check", "--no-input"]
        with step(progress, f"pip install apache-superset=={SUPERSET_VERSION} (~1 min, ~800 MB)"):
            run_logged(
                [
                    *pip,
                    "install",
                    "-c",
                    CONSTRAINTS_FILE,
                    f"apache-superset=={SUPERSET_VERSION}",
                    *EXTRA_PINS,
                ],
                log=log,
                env=None,
                timeout=INSTALL_TIMEOUT_S,
            )
        if not paths.superset_bin.exists():
            raise SandboxError(f"pip finished but {paths.superset_bin} is missing; log {log}")
        paths.install_stamp.write_text(_stamp_value(), encoding="utf-8")
        return paths.venv


def admin_password(paths: CachePaths | None = None) -> str:
    """The sandbox admin's password (generated once, stored with mode 600)."""
    return read_or_create_secret((paths or CachePaths.default()).password_file, 18)


def secret_key(paths: CachePaths | None = None) -> str:
    """The SECRET_KEY shared by the sandbox instances (their DBs are copies of one)."""
    return read_or_create_secret((paths or CachePaths.default()).secret_key_file, 48)


def ensure_bootstrapped(progress: Progress = print, paths: CachePaths | None = None) -> Path:
    """Bootstrap the template metadata DB once; return its path."""
    paths = paths or CachePaths.default()
    ensure_installed(progress, paths)
    with cache_lock(paths):
        if paths.base_db.exists() and paths.password_file.exists():
            if paths.secret_key_file.exists():
                return paths.base_db
        # no template yet, or its admin password / SECRET_KEY is lost: start over
        shutil.rmtree(paths.templates, ignore_errors=True)
        password = admin_password(paths)
        work = paths.base_db.parent.with_name("base.partial")
        shutil.rmtree(work, ignore_errors=True)
        write_superset_config(work, secret_key=secret_key(paths))
        env = superset_env(dict(os.environ), venv=paths.venv, home=work)
        log = work / "bootstrap.log"
        superset = paths.superset_bin
        with step(progress, "superset db upgrade"):
            run_logged([superset, "db", "upgrade"], log=log, env=env, timeout=BOOTSTRAP_TIMEOUT_S)
        with step(progress, "superset fab create-admin"):
            run_logged(
                [
                    superset,
                    "fab",
                    "create-admin",
                    "--username",
                    ADMIN_USERNAME,
                    "--firstname",
                    "Sandbox",
                    "--lastname",
                    "Admin",
                    "--email",
                    "admin@sandbox.invalid",
                    "--password",
                    password,
                ],
                log=log,
                env=env,
                timeout=BOOTSTRAP_TIMEOUT_S,
                secret=password,
            )
        with step(progress, "superset init"):
            run_logged([superset, "init"], log=log, env=env, timeout=BOOTSTRAP_TIMEOUT_S)
        shutil.rmtree(paths.base_db.parent, ignore_errors=True)
        work.rename(paths.base_db.parent)
        return paths.base_db
