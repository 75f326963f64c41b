"""Test harness shared by every test.

At import time (before any app module reads settings) the environment is made hermetic:
``SS_TOOLS_*`` variables from the caller's shell are dropped (except REQUIRE_ALL,
SANDBOX_DIR and TEST_*), dev mode is on, data goes to a session temp dir, no Superset
sandbox, no environments file, and retry/countdown delays are tiny.

Fixtures: ``session`` (in-memory SQLite with every table), ``sqlite_file_url`` (a fresh
SQLite file), ``pg_url`` (a session-wide throwaway PostgreSQL, see ``tests/pg.py``),
``isolated_db`` (points the app's own engine at a fresh SQLite file for one test).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

_KEEP = {"SS_TOOLS_REQUIRE_ALL", "SS_TOOLS_SANDBOX_DIR"}
for _name in [n for n in os.environ if n.startswith("SS_TOOLS_")]:
    if _name not in _KEEP and not _name.startswith("SS_TOOLS_TEST_"):
        del os.environ[_name]

TEST_ROOT = Path(tempfile.mkdtemp(prefix="ss-tools-tests-"))
os.environ.update(
    {
        "SS_TOOLS_DEV": "1",
        "SS_TOOLS_DATA_DIR": str(TEST_ROOT / "data"),
        "SS_TOOLS_SANDBOX": "0",
        "SS_TOOLS_ENVIRONMENTS_FILE": str(TEST_ROOT / "no-environments.toml"),
        "SS_TOOLS_RETRY_DELAY_S": "0.01",
        "SS_TOOLS_COUNTDOWN_TICK_S": "0.01",
    }
)

from sqlmodel import Session  # noqa: E402  (after the environment is set)

from app.settings import get_settings, reset_settings  # noqa: E402
from app.store import db  # noqa: E402
from tests.pg import PgUnavailableError, start_cluster  # noqa: E402
from tests.support import require_or_skip  # noqa: E402


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    from app.agent.core import install_core

    install_core(None)  # stops the last core's aiosqlite threads (they would keep us alive)
    db.reset_engine()
    shutil.rmtree(TEST_ROOT, ignore_errors=True)


@pytest.fixture(autouse=True)
def _settings_follow_environment() -> Iterator[None]:
    """After each test (and after monkeypatch has restored the environment), forget
    cached settings; drop the cached engine only if it no longer matches them."""
    yield
    reset_settings()
    url = db.current_engine_url()
    if url is not None and url != get_settings().db_url:
        db.reset_engine()


@pytest.fixture
def session() -> Iterator[Session]:
    """A session on a private in-memory SQLite database with every table."""
    engine = db.make_engine("sqlite://")
    db.init_db(engine)
    with Session(engine, expire_on_commit=False) as s:
        yield s
    engine.dispose()


@pytest.fixture
def sqlite_file_url(tmp_path: Path) -> str:
    """The URL of a fresh SQLite file (shared by several connections and threads)."""
    return f"sqlite:///{tmp_path / 'test.db'}"


@pytest.fixture
def isolated_db(monkeypatch: pytest.MonkeyPatch, sqlite_file_url: str) -> Iterator[str]:
    """Point the app's engine (``get_engine`` / ``session_scope``) at a fresh SQLite file."""
    monkeypatch.setenv("SS_TOOLS_DATABASE_URL", sqlite_file_url)
    reset_settings()
    db.reset_engine()
    yield sqlite_file_url
    db.reset_engine()


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A throwaway PostgreSQL database for the whole session (``SS_TOOLS_TEST_PG_URL``
    points at an existing one instead)."""
    external = os.environ.get("SS_TOOLS_TEST_PG_URL")
    if external:
        yield external
        return
    try:
        cluster = start_cluster()
    except PgUnavailableError as exc:
        require_or_skip(False, f"PostgreSQL not available: {exc}")
        return
    try:
        yield cluster.url
    finally:
        cluster.stop()


# Superset sandbox fixtures (session-scoped, started only when a test asks for them); defined
# once here so integration and browser tests share one sandbox per run.
from tests.sandbox_fixtures import superset_envs_file, superset_sandbox  # noqa: E402

__all__ = ["superset_envs_file", "superset_sandbox"]
