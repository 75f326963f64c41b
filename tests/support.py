"""Helpers shared by tests."""

from __future__ import annotations

import os

import pytest


def require_or_skip(condition: bool, reason: str) -> None:
    """Skip the test when ``condition`` is false, or fail it under SS_TOOLS_REQUIRE_ALL=1 (CI)."""
    if condition:
        return
    if os.environ.get("SS_TOOLS_REQUIRE_ALL") == "1":
        pytest.fail(f"required in CI (SS_TOOLS_REQUIRE_ALL=1) but unavailable: {reason}")
    pytest.skip(reason)
