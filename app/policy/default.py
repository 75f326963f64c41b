"""The policy in force when a caller names none: the product's catalog, no policy file.

Every function of :mod:`app.policy` that takes ``policy=`` defaults to
:func:`default_policy`, so the contract's calls work as it writes them
(``enforce_tool_permission(tool_name, user_role)``). The catalog is
:data:`app.tools.catalog.TOOL_CATALOG` (pure: the families' specs), imported on first use
so that importing :mod:`app.policy` stays cheap; ``app.agent.rules.Rules.policy()`` is
the policy in force on the agent side (that catalog, or a test's, plus the policy file).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from app.policy.config import Policy
from app.policy.toolspec import ToolSpec


def product_catalog() -> Mapping[str, ToolSpec]:
    """The product's catalog (the one place policy reaches for it)."""
    from app.tools.catalog import TOOL_CATALOG

    return TOOL_CATALOG


@cache
def default_policy() -> Policy:
    """The product's policy: its own catalog, no policy file (one object)."""
    return Policy(catalog=product_catalog())


def in_force(policy: Policy | None) -> Policy:
    """``policy``, or the product's (:func:`default_policy`) when none is given."""
    return default_policy() if policy is None else policy
