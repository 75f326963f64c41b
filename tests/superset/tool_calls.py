"""A tool call as the tool tests make it, on the test's parts and no network: its
dependencies (``tool_deps``; ``deps_for`` with environments served by a scripted
Superset) and the call itself (``call``)."""

from __future__ import annotations

from typing import Any

import httpx

from app.parts import Parts
from app.superset.environments import Environment
from app.superset.registry import EnvironmentRegistry
from app.tools.kit import ToolDeps
from tests.superset.fake import FakeSuperset, make_env
from tests.support import run_tool


def deps_for(
    parts: Parts, fake: FakeSuperset, *envs: Environment, role: str = "admin", **kw: Any
) -> ToolDeps:
    """A call's dependencies on the test's parts with ``envs`` served by ``fake``."""
    registry = EnvironmentRegistry(envs or [make_env()], transport=httpx.MockTransport(fake))
    return tool_deps(parts, role=role, env_id=kw.pop("env_id", None), registry=registry, **kw)


def tool_deps(
    parts: Parts,
    *,
    user_id: str = "alice",
    role: str = "admin",
    conv_id: str = "c1",
    env_id: str | None = None,
    registry: EnvironmentRegistry | None = None,
    **kw: Any,
) -> ToolDeps:
    """A call's dependencies on the test's parts (settings, database, task runner);
    ``registry`` defaults to one with no environment."""
    return ToolDeps(
        settings=parts.settings,
        user_id=user_id,
        role=role,
        conv_id=conv_id,
        env_id=env_id,
        registry=registry if registry is not None else EnvironmentRegistry([]),
        db=parts.db,
        tasks=parts.tasks,
        **kw,
    )


async def call(name: str, deps: ToolDeps, **args: Any) -> Any:
    return await run_tool(name, deps, **args)
