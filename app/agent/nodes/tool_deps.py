"""A call's ToolDeps: what a tool's function and hooks are handed (the app's parts, the
environment the guard resolved for the call, the page's, the policy, the tools in force).
The guard builds them for a tool's hooks, the tool node for its run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.agent.state import AgentContext
from app.policy import Policy
from app.settings import Settings
from app.store.db import Database
from app.superset.registry import EnvironmentRegistry
from app.tasks.worker import TaskRunner
from app.tools import TOOLS
from app.tools.kit import Tool, ToolDeps

#: Builds a call's ToolDeps:
#: (*, ctx, env_id, env_source, selected_env, policy, task_id, progress) -> ToolDeps.
DepsFactory = Callable[..., Any]


def tool_deps_factory(
    *,
    settings: Settings,
    registry: EnvironmentRegistry,
    db: Database,
    tasks: TaskRunner,
    tools: Mapping[str, Tool] = TOOLS,
) -> DepsFactory:
    """The product's deps factory: a call's ToolDeps from the app's parts, the environment
    the guard resolved for it, the page's, the policy, the tools in force."""

    def make(
        *,
        ctx: AgentContext,
        env_id: str | None,
        env_source: str,
        selected_env: str | None,
        policy: Policy,
        task_id: str | None,
        progress: Any,
    ) -> ToolDeps:
        return ToolDeps(
            settings=settings,
            user_id=ctx.user_id,
            role=ctx.role,
            conv_id=ctx.conv_id,
            env_id=env_id,
            registry=registry,
            task_id=task_id,
            progress=progress,
            object_type=ctx.object_type,
            policy=policy,
            env_source=env_source,
            selected_env=selected_env,
            lang=ctx.lang,
            db=db,
            tasks=tasks,
            tools=tools,
        )

    return make
