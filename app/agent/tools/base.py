"""What every tool implementation receives: its validated args and a :class:`ToolDeps`.

``ToolFn = Callable[[ToolArgs, ToolDeps], Awaitable[Any]]``: args are an instance of the
tool's own args model, already validated (args models are policy's: each in its family's
spec module, on ``ToolArgs`` and the field helpers of :mod:`app.policy.tools.base`, which
are re-exported here); the return value is JSON-able (dict / list) or a string. Tools
hold no RBAC checks and write no audit rows: the graph's guard/tool seam does both.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.i18n import progress_line
from app.policy.tools.base import (
    DASHBOARD_ID,
    ENV_ID,
    RU_DASHBOARD,
    EnvArgs,
    NoArgs,
    Ru,
    ToolArgs,
    arg,
    env_field,
    ru_texts,
)
from app.settings import Settings
from app.store.db import Database
from app.superset.registry import EnvironmentRegistry
from app.tasks.worker import Job, TaskRunner

if TYPE_CHECKING:
    from app.policy import Policy
    from app.superset.client import SupersetClient
    from app.superset.environments import Environment

Progress = Callable[[int, int, str], Awaitable[None]]


@dataclass
class ToolDeps:
    """Per-call dependencies built by the tool seam.

    ``env_id`` is the environment the guard resolved for this call (the one the
    confirmation card named): the call's own ``env_id``/``target_env``, else the selected
    environment, else the registry's default. ``env_source`` says where it came from
    (``app.policy.envs.EnvSource``: args, submitted, context, backup, default, none).
    ``selected_env`` is the page's environment (submitted, else UIContext, else the
    registry's default) whatever the call names: a deploy's omitted source.
    ``db`` (the product's tables: backups, maintenance, tasks) and ``tasks`` (the task
    runner of long tools) are the app's parts, handed in by the seam.
    """

    settings: Settings
    user_id: str
    role: str
    conv_id: str
    env_id: str | None
    registry: EnvironmentRegistry
    task_id: str | None = None  # pre-allocated by the seam for long-running tools
    progress: Progress | None = None
    object_type: str | None = None  # the page's UIContext objectType, for show_capabilities
    policy: Policy | None = None  # the policy in force for this call
    env_source: str = "submitted"
    selected_env: str | None = None  # None: the same as env_id
    lang: str = "en"  # the person's language in this turn (what a result says in words)
    db: Database = field(kw_only=True)
    tasks: TaskRunner = field(kw_only=True)

    @property
    def env_chosen(self) -> bool:
        """Whether a person or the call named the environment (not the registry default)."""
        return self.env_id is not None and self.env_source not in ("default", "none")

    def __post_init__(self) -> None:
        if self.selected_env is None:
            self.selected_env = self.env_id

    def env(self, env_id: str | None = None) -> Environment:
        """The environment of this call: the given ``env_id``, else the resolved one."""
        return self.registry.resolve(env_id, self.env_id)

    def client(self, env_id: str | None = None) -> SupersetClient:
        """The pooled Superset client of this call's environment."""
        return self.registry.client(self.env(env_id).id)

    def env_client(self, env_id: str | None = None) -> tuple[Environment, SupersetClient]:
        """This call's environment (:meth:`env`) and its pooled Superset client."""
        env = self.env(env_id)
        return env, self.registry.client(env.id)

    def say(self, key: str, **fmt: object) -> str:
        """A progress line of the catalog's ``[progress]`` section, in this turn's
        language (issue 25: a long task's lines are said like the rest of the turn)."""
        return progress_line(key, self.lang, **fmt)

    async def report(self, step: int, total: int, message: str) -> None:
        """Report progress of a long tool ("step i of n"); a no-op without a listener."""
        if self.progress is not None:
            await self.progress(step, total, message)

    async def run_task(self, kind: str, job: Job, *, env_id: str, total_steps: int) -> Any:
        """``job`` as this call's long task (the id the seam allocated), on ``env_id``, in
        the caller's name and conversation, its steps reported to this call's listener;
        its result, or its error raised."""
        return await self.tasks.run(
            kind,
            job,
            task_id=self.task_id,
            user=self.user_id,
            conv_id=self.conv_id,
            env_id=env_id,
            total_steps=total_steps,
            progress=self.progress,
        )


ToolFn = Callable[[Any, ToolDeps], Awaitable[Any]]

__all__ = [
    "DASHBOARD_ID",
    "ENV_ID",
    "RU_DASHBOARD",
    "EnvArgs",
    "NoArgs",
    "Progress",
    "Ru",
    "ToolArgs",
    "ToolDeps",
    "ToolFn",
    "arg",
    "env_field",
    "ru_texts",
]
