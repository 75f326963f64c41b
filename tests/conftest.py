"""Test harness shared by every test.

At import time (before any app module reads settings) the environment is made hermetic:
``SS_TOOLS_*`` variables from the caller's shell are dropped (except REQUIRE_ALL,
SANDBOX_DIR and TEST_*), dev mode is on, data goes to a session temp dir, no Superset
sandbox, no environments file, retry/countdown delays are tiny and password hashes cheap.

Every test also gets its own data dir and SQLite file in the environment (autouse), so an
app the NiceGUI ``user`` fixture starts (main.py: ``Settings()`` -> ``create_app``) is
private to the test.

Fixtures: ``settings`` (the environment's settings with a fresh SQLite file and data dir
for this test), ``parts`` (the app's parts built from them — ``app.parts.build_parts`` —
closed at teardown; tests hand them, or their pieces, to the code they exercise),
``app_parts`` (the parts the app under test installed, after the ``user`` fixture ran
main.py),
``session`` (in-memory SQLite with every table), ``sqlite_file_url`` (a fresh SQLite
file), ``pg_url`` (a session-wide throwaway PostgreSQL, see ``tests/pg.py``).
"""

from __future__ import annotations

import gc
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

_KEEP = {"SS_TOOLS_REQUIRE_ALL", "SS_TOOLS_SANDBOX_DIR", "SS_TOOLS_LLM_CACHE_DIR"}
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
        # cheap password hashes (tests.support.TEST_SCRYPT_N); production keeps 2**14,
        # which tests/auth/test_passwords.py holds
        "SS_TOOLS_SCRYPT_N": "16",
    }
)

from nicegui import app as nicegui_app  # noqa: E402  (after the environment is set)
from nicegui.testing import User  # noqa: E402
from sqlmodel import Session  # noqa: E402

from app.pages import PAGE_MODULES  # noqa: E402
from app.parts import PARTS_STATE, Parts, build_parts, installed  # noqa: E402
from app.settings import Settings  # noqa: E402
from app.store import db  # noqa: E402
from tests.pg import PgUnavailableError, start_cluster  # noqa: E402
from tests.support import require_or_skip  # noqa: E402
from tests.waiting import patient_page_checks, patient_task_teardown  # noqa: E402

# The harness's doors assert what they were handed: pytest's diff for them too (a plugin
# module is rewritten, a module it imports is not unless named here, before the import).
pytest.register_assert_rewrite("tests.agent.harness_doors")

# Fixtures shared across directories, each defined once (no conftest imports another's):
# the page tests' (core, sign_in), the agent harness, the session-wide real parts (the
# Superset sandbox, the local LLM; started only when a test asks for them, once per run).
pytest_plugins = (
    "tests.fixtures.pages",
    "tests.agent.harness",
    "tests.sandbox_fixtures",
    "tests.llm_fixtures",
)


def pytest_configure(config: pytest.Config) -> None:
    patient_page_checks()  # the page tests' looks wait for a loaded machine (tests.waiting)
    patient_task_teardown()  # and so does the app's shutdown, for its cancelled tasks
    config.addinivalue_line(
        "markers",
        "app_env(**settings): SS_TOOLS_* settings of the test's environment, set before the "
        "app under test starts",
    )


#: a fixture that starts a slow real part -> the marker of the tests that use it, so
#: ``-m "not superset and not browser and not postgres and not llm"`` leaves them all out
_REAL_PART_MARKERS = {
    "pg_url": "postgres",
    "superset_sandbox": "superset",
    "superset_envs_file": "superset",
    "local_llm": "llm",
}


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests of a real part by the fixtures they use, so ``-m`` selects them
    (dev.py runs the real parts' tests in a process of their own: each part starts once)."""
    for item in items:
        for fixture in set(getattr(item, "fixturenames", ())) & set(_REAL_PART_MARKERS):
            item.add_marker(_REAL_PART_MARKERS[fixture])


def pytest_collection_finish(session: pytest.Session) -> None:
    """Everything imported so far (the app, its libraries, the test modules) lives for the
    whole session: move it out of the garbage collector's sight (``gc.freeze``). The NiceGUI
    ``user`` fixture runs ``gc.collect()`` twice per test; over the whole heap that cost
    about 0.3 s each time, over what a test made, a few milliseconds."""
    gc.collect()
    gc.freeze()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    installed = getattr(nicegui_app.state, PARTS_STATE, None)
    if isinstance(installed, Parts):  # the last page test's app: its core's aiosqlite
        installed.close()  # threads would keep the process alive
    shutil.rmtree(TEST_ROOT, ignore_errors=True)


@pytest.fixture(autouse=True)
def _private_app_environment(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The environment main.py reads names this test's data dir and SQLite file (the same
    ones as :func:`settings_for`), plus the settings of the test's ``app_env`` marker
    (``@pytest.mark.app_env(revocation_cache_s=0.3)``): settings are read once, when the
    app is built, so a test states them before the app starts."""
    monkeypatch.setenv("SS_TOOLS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SS_TOOLS_DATABASE_URL", f"sqlite:///{tmp_path / 'app.db'}")
    # absent unless the test writes it (before the app starts: it is read once)
    monkeypatch.setenv("SS_TOOLS_ENVIRONMENTS_FILE", str(tmp_path / "environments.toml"))
    for marker in reversed(list(request.node.iter_markers("app_env"))):
        for name, value in marker.kwargs.items():
            monkeypatch.setenv(f"SS_TOOLS_{name.upper()}", str(value))
    if "user" in request.fixturenames:
        _forget_page_modules()


def _forget_page_modules() -> None:
    """Before a ``user`` test's main.py runs, no page module is left imported.

    NiceGUI's test plugin clears every page route at set-up, and at teardown unloads only
    the modules whose pages it saw. A page module imported in between (a test importing
    ``app.pages.audit`` for its helpers, say) would stay in ``sys.modules``:
    ``create_app``'s import would then not run its ``@ui.page`` again, and the page
    answers 404 (seen on CI, in a whole-suite order that no single directory shows)."""
    for name in PAGE_MODULES:
        sys.modules.pop(name, None)


def settings_for(tmp_path: Path, **overrides: Any) -> Settings:
    """The test environment's settings with a data dir and SQLite file under ``tmp_path``
    (``overrides``: other settings, as keyword arguments)."""
    base: dict[str, Any] = {
        "data_dir": tmp_path / "data",
        "database_url": f"sqlite:///{tmp_path / 'app.db'}",
    }
    return Settings(**{**base, **overrides})


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """The test environment's settings, with this test's own data dir and SQLite file."""
    return settings_for(tmp_path)


@pytest.fixture
def make_parts(tmp_path: Path) -> Iterator[Callable[..., Parts]]:
    """``make_parts(**overrides)``: parts built from this test's settings with
    ``overrides`` (same database), closed at teardown."""
    built: list[Parts] = []

    def make(**overrides: Any) -> Parts:
        made = build_parts(settings_for(tmp_path, **overrides))
        built.append(made)
        return made

    yield make
    for made in built:
        made.close()


@pytest.fixture
def parts(make_parts: Callable[..., Parts]) -> Parts:
    """The app's parts for this test (offline planner, no Superset environment)."""
    return make_parts()


@pytest.fixture
def app_parts(user: User) -> Parts:
    """The parts the app under test installed (the ``user`` fixture ran main.py, whose
    ``create_app()`` built them from this test's environment)."""
    return installed(nicegui_app)


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
