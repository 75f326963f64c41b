"""Shared pieces of the sandbox: its error type, cache layout, path attributes
(:class:`Below`), progress timing and a part a ``with`` block stops (:class:`Stoppable`)."""

from __future__ import annotations

import os
import secrets
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self, overload

from app.errors import SsToolsError
from app.settings import Settings

SUPERSET_VERSION = "6.1.0"
EXTRA_PINS = ("flask-caching==2.3.1", "rich", "cachetools")
CONSTRAINTS_FILE = Path(__file__).with_name(f"constraints-{SUPERSET_VERSION}.txt")
ADMIN_USERNAME = "admin"
#: bump when app/sandbox/demo.py or people.py changes, so stale seeded DBs are not reused
SEED_VERSION = 2

Progress = Callable[[str], object]


class SandboxError(SsToolsError):
    """The local Superset sandbox could not be installed, started or seeded."""


def quiet(_message: str) -> None:
    """A progress sink that drops messages."""


class Below:
    """A read-only path attribute: ``parts`` below the path its owner keeps in the
    attribute ``base`` (``log_file = Below("home", "superset.log")``). A layout of files
    reads as a table of these."""

    def __init__(self, base: str, *parts: str) -> None:
        self.base = base
        self.parts = parts

    @overload
    def __get__(self, owner: None, owner_type: type) -> Below: ...
    @overload
    def __get__(self, owner: object, owner_type: type | None = None) -> Path: ...
    def __get__(self, owner: object, owner_type: type | None = None) -> Path | Below:
        if owner is None:
            return self
        return Path(getattr(owner, self.base), *self.parts)

    def __set__(self, owner: object, value: Any) -> None:
        raise AttributeError(f"a path below {self.base!r} is read-only")


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

    venv = Below("root", "venv")
    superset_bin = Below("venv", "bin", "superset")
    python_bin = Below("venv", "bin", "python")
    install_stamp = Below("root", "installed.stamp")
    templates = Below("root", "templates")
    #: The bootstrapped (migrated, admin created, roles synced) metadata DB.
    base_db = Below("templates", "base", "superset.db")
    sales_db = Below("root", "data", "sales.db")
    password_file = Below("root", "admin-password")
    secret_key_file = Below("root", "secret-key")
    default_run_dir = Below("root", "run")

    def seeded_db(self, env_id: str) -> Path:
        """The metadata DB of ``env_id`` after seeding, reused by warm starts."""
        return self.templates / f"seeded-v{SEED_VERSION}-{env_id}" / "superset.db"


def read_or_create_secret(path: Path, nbytes: int = 32) -> str:
    """A random secret kept in ``path`` (mode 600), created on first use."""
    if path.exists():
        value = path.read_text(encoding="utf-8").strip()
        if value:
            return value
    value = secrets.token_urlsafe(nbytes)
    write_private(path, value + "\n")
    return value


def write_private(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` readable by its owner only (mode 600, from the first
    byte), making its folder when missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    path.chmod(0o600)
    return path


@contextmanager
def step(progress: Progress, label: str, part: str = "sandbox") -> Iterator[None]:
    """Print ``label …`` and, when it finishes, its duration (each line tagged ``[part]``)."""
    progress(f"[{part}] {label} …")
    started = time.perf_counter()
    yield
    progress(f"[{part}] {label}: done in {time.perf_counter() - started:.1f} s")


class Stoppable(ABC):
    """A part that runs until :meth:`stop`; a ``with`` block stops it on the way out."""

    @abstractmethod
    def stop(self, progress: Progress | None = None) -> None:
        """End what runs; safe to call twice."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def tail(path: Path, lines: int = 40) -> str:
    """The last ``lines`` lines of a log file ("" when it does not exist)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return ""
    return "\n".join(text.splitlines()[-lines:])
