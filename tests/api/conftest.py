"""Graph/handler test fixtures (see tests/agent/harness.py)."""

from tests.agent.harness import harness

__all__ = ["harness"]
