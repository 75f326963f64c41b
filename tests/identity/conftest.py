"""Fixtures of acting in Superset as the person against the real sandbox: its
environments with dev acting as each person, a registry on them with accounts, and the
sandbox's people (alice, seeded; others made per need)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.sandbox import Sandbox
from app.sandbox.common import CachePaths
from app.sandbox.second_person import person_password
from app.superset.people import serve_people
from app.superset.registry import EnvironmentRegistry, load_environments
from tests.agent.harness import Harness


@pytest.fixture(scope="session")
def person_envs_file(superset_sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sandbox's environments with dev acting as each person (prod: the service)."""
    path = tmp_path_factory.mktemp("person-envs") / "environments.toml"
    return superset_sandbox.write_environments_file(path, person=("dev",))


@pytest.fixture
def alice_password(superset_sandbox: Sandbox) -> str:
    return person_password(superset_sandbox.paths or CachePaths.default())


@pytest.fixture
async def on_person_dev(
    harness: Harness, person_envs_file: Path
) -> AsyncIterator[EnvironmentRegistry]:
    """The harness serves the sandbox with dev acting as each person."""
    registry = load_environments(person_envs_file)
    serve_people(registry, harness.parts.settings, harness.parts.db)
    harness.serve(registry)
    yield registry
    await registry.aclose()
