"""Integration tests: the agent harness is available here too, and ``registry`` (the
sandbox's environments, loaded from its environments file and closed afterwards)."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.superset.registry import EnvironmentRegistry, load_environments
from tests.agent.harness import harness

__all__ = ["harness"]


@pytest.fixture
async def registry(superset_envs_file: Path) -> AsyncIterator[EnvironmentRegistry]:
    reg = load_environments(superset_envs_file)
    yield reg
    await reg.aclose()
