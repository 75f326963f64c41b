"""Integration tests: ``registry`` (the sandbox's environments, loaded from its
environments file and closed afterwards); the agent harness, ``harness``, comes from the
plugin tests/agent/harness.py (``pytest_plugins`` in tests/conftest.py)."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.superset.registry import EnvironmentRegistry, load_environments


@pytest.fixture
async def registry(superset_envs_file: Path) -> AsyncIterator[EnvironmentRegistry]:
    reg = load_environments(superset_envs_file)
    yield reg
    await reg.aclose()
