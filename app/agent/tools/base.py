"""What every tool receives: its validated args and a :class:`ToolDeps`.

``ToolFn = Callable[[BaseModel, ToolDeps], Awaitable[Any]]``: args are an instance of
the catalog's ``args_model`` (already validated); the return value is JSON-able
(dict / list) or a string. Tools hold no RBAC checks and write no audit rows: the
graph's guard/tool seam does both.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from app.settings import Settings

if TYPE_CHECKING:
    from app.superset.client import SupersetClient
    from app.superset.environments import Environment
    from app.superset.registry import EnvironmentRegistry

Progress = Callable[[int, int, str], Awaitable[None]]


@dataclass
class ToolDeps:
    """Per-call dependencies built by the tool seam."""

    settings: Settings
    user_id: str
    role: str
    conv_id: str
    env_id: str | None  # the selected environment (page picker / UIContext), may be None
    registry: EnvironmentRegistry
    task_id: str | None = None  # pre-allocated by the seam for long-running tools
    progress: Progress | None = None
    object_type: str | None = None  # the page's UIContext objectType, for show_capabilities

    def env(self, env_id: str | None = None) -> Environment:
        """The environment of this call: the tool's ``env_id`` arg, else the selected one."""
        return self.registry.resolve(env_id, self.env_id)

    def client(self, env_id: str | None = None) -> SupersetClient:
        """The pooled Superset client of this call's environment."""
        return self.registry.client(self.env(env_id).id)

    async def report(self, step: int, total: int, message: str) -> None:
        """Report progress of a long tool ("step i of n"); a no-op without a listener."""
        if self.progress is not None:
            await self.progress(step, total, message)


ToolFn = Callable[[BaseModel, ToolDeps], Awaitable[Any]]
