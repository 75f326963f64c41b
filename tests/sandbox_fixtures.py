"""Session fixtures for tests against a real local Superset 6.1.0 sandbox
(loaded by tests/conftest.py).

* ``superset_sandbox`` (session): installs Superset on first use (cached venv, needs PyPI
  once), starts ``dev`` and ``prod`` on fresh copies of the prepared metadata DBs in a
  temp dir on 127.0.0.1, seeds the demo objects, yields the :class:`Sandbox` and stops
  it at the end of the session.
* ``superset_envs_file`` (session): an ``environments.toml`` for those instances.
* ``sandbox_dashboards``: ``sandbox_dashboards(env, title, slug)`` makes a dashboard on
  the sandbox for one test and returns its id; each is removed after the test unless the
  test deleted it (:func:`sandbox_dashboard`, for a block of its own).

When Superset cannot be installed (no network) the tests skip with the reason — except
under ``SS_TOOLS_REQUIRE_ALL=1`` (CI), where they fail. Mark tests ``@pytest.mark.superset``.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from app.sandbox import Sandbox, SandboxError, ensure_bootstrapped, seed_sandbox, start_sandbox
from tests.support import require_or_skip


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@pytest.fixture(scope="session")
def superset_sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """Running, seeded dev + prod Superset instances (stopped at session end)."""
    try:
        ensure_bootstrapped(progress=_progress)
    except SandboxError as exc:
        require_or_skip(False, f"Superset sandbox could not be installed: {exc}")
    sandbox = start_sandbox(
        envs=("dev", "prod"),
        base_dir=tmp_path_factory.mktemp("superset-sandbox"),
        progress=_progress,
    )
    try:
        seed_sandbox(sandbox, _progress)
        yield sandbox
    finally:
        sandbox.stop()


@pytest.fixture(scope="session")
def superset_envs_file(superset_sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An environments.toml (``[[environment]]`` with local passwords) for the sandbox."""
    return superset_sandbox.write_environments_file(
        tmp_path_factory.mktemp("superset-envs") / "environments.toml"
    )


@pytest.fixture
def sandbox_dashboards(superset_sandbox: Sandbox) -> Iterator[Callable[..., int]]:
    """``make(env, title, slug="test")``: a dashboard made on the sandbox's ``env`` for
    this test (its id), removed after the test unless the test deleted it."""
    with ExitStack() as stack:

        def make(env: str, title: str, slug: str = "test") -> int:
            return stack.enter_context(sandbox_dashboard(superset_sandbox, env, title, slug))

        yield make


@contextmanager
def sandbox_dashboard(sandbox: Sandbox, env: str, title: str, slug: str = "test") -> Iterator[int]:
    """A dashboard made on the sandbox's ``env`` for one test (its id); removed afterwards
    unless the test deleted it already."""
    from app.sandbox.superset_rest import SupersetSession

    inst = sandbox.env(env)
    with SupersetSession(inst.url, inst.username, inst.password) as ss:
        created = ss.call(
            "POST",
            "/api/v1/dashboard/",
            json={"dashboard_title": title, "slug": f"{slug}-{uuid.uuid4().hex[:8]}"},
        )
        yield int(created["id"])
        ss.raw("DELETE", f"/api/v1/dashboard/{created['id']}", expect=(200, 404))


def dashboard_exists(sandbox: Sandbox, env: str, dashboard_id: int) -> bool:
    """Whether the sandbox's ``env`` still has the dashboard."""
    from app.sandbox.superset_rest import SupersetSession

    inst = sandbox.env(env)
    with SupersetSession(inst.url, inst.username, inst.password) as ss:
        response = ss.raw("GET", f"/api/v1/dashboard/{dashboard_id}", expect=(200, 404))
        return response.status_code == 200
