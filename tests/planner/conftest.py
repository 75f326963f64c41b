"""The planner's tests: the agent tests' harness, for the planner driving the real graph."""

from tests.agent.harness import harness

__all__ = ["harness"]
