"""Shared pieces of the sandbox: its error type, cache layout and progress timing."""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from app.errors import SsToolsError
from app.settings import Settings

SUPERSET_VERSION = "6.1.0"
EXTRA_PINS = ("flask-caching==2.3.1", "rich", "cachetools")
CONSTRAINTS_FILE = Path(__file__).with_name(f"constraints-{SUPERSET_VERSION}.txt")
ADMIN_USERNAME = "admin"
SEED_VERSION = 1  # bump when app/sandbox/demo.py changes, so stale seeded DBs are not reused

Progress = Callable[[str], object]


class SandboxError(SsToolsError):
    """The local Superset sandbox could not be installed, started or seeded."""


def quiet(_message: str) -> None:
    """A progress sink that drops messages."""


@dataclass(frozen=True)
class CachePaths:
    """Layout of the sandbox cache directory (``settings.sandbox_dir``)."""

    root: Path

    @classmethod
    def of(cls, settings: Settings) -> CachePaths:
        return cls(Path(settings.sandbox_dir).expanduser().resolve())

    @classmethod
    def default(cls) -> CachePaths:
        """The cache the environment names (``SS_TOOLS_SANDBOX_DIR``): the sandbox's own
        commands and benchmarks are entry points, and read the settings as one."""
        return cls.of(Settings())

    @property
    def venv(self) -> Path:
        return self.root / "venv"

    @property
    def superset_bin(self) -> Path:
        return self.venv / "bin" / "superset"

    @property
    def python_bin(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def install_stamp(self) -> Path:
        return self.root / "installed.stamp"

    @property
    def templates(self) -> Path:
        return self.root / "templates"

    @property
    def base_db(self) -> Path:
        """The bootstrapped (migrated, admin created, roles synced) metadata DB."""
        return self.templates / "base" / "superset.db"

    def seeded_db(self, env_id: str) -> Path:
        """The metadata DB of ``env_id`` after seeding, reused by warm starts."""
        return self.templates / f"seeded-v{SEED_VERSION}-{env_id}" / "superset.db"

    @property
    def sales_db(self) -> Path:
        return self.root / "data" / "sales.db"

    @property
    def password_file(self) -> Path:
        return self.root / "admin-password"

    @property
    def secret_key_file(self) -> Path:
        return self.root / "secret-key"

    @property
    def default_run_dir(self) -> Path:
        return self.root / "run"


def read_or_create_secret(path: Path, nbytes: int = 32) -> str:
    """A random secret kept in ``path`` (mode 600), created on first use."""
    if path.exists():
        value = path.read_text(encoding="utf-8").strip()
        if value:
            return value
    path.parent.mkdir(parents=True, exist_ok=True)
    value = secrets.token_urlsafe(nbytes)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(value + "\n")
    path.chmod(0o600)
    return value


@contextmanager
def step(progress: Progress, label: str) -> Iterator[None]:
    """Print ``label …`` and, when it finishes, its duration."""
    progress(f"[sandbox] {label} …")
    started = time.perf_counter()
    yield
    progress(f"[sandbox] {label}: done in {time.perf_counter() - started:.1f} s")


def tail(path: Path, lines: int = 40) -> str:
    """The last ``lines`` lines of a log file ("" when it does not exist)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return ""
    return "\n".join(text.splitlines()[-lines:])
