"""HTTP API test fixtures: the graph harness (tests/agent/harness.py) on the parts of the
app under test, so the doors reached over HTTP serve the harness's core."""

import pytest

from app.parts import Parts
from tests.agent.harness import harness

__all__ = ["harness"]


@pytest.fixture
def parts(app_parts: Parts) -> Parts:
    """The parts the app under test installed (the ``user`` fixture ran main.py)."""
    return app_parts
