"""Integration tests: the agent harness is available here too."""

from tests.agent.harness import harness

__all__ = ["harness"]
