"""Read-only checks run before a confirmation is asked, shown in the confirmation card.

A migration (or a deploy) shows what it will create or overwrite on the target; a
blocking problem (e.g. a source database with no match on the target) stops the call
before anybody is asked to confirm it.
"""

from __future__ import annotations

from typing import Any

from app.agent.state import AgentContext

PREFLIGHT_TOOLS = frozenset({"execute_migration", "deploy_dashboard"})


async def default_preflight(
    tool_name: str, args: dict[str, Any], ctx: AgentContext
) -> dict[str, Any] | None:
    if tool_name not in PREFLIGHT_TOOLS:
        return None
    from app.agent.tools.deploy import preflight_migration
    from app.superset.registry import get_registry

    registry = get_registry()
    source = registry.resolve(args.get("source_env"), selected=ctx.selected_env)
    target = registry.resolve(args.get("target_env"))
    ids = list(args.get("dashboard_ids") or [])
    if not ids and args.get("dashboard_id") is not None:
        ids = [args["dashboard_id"]]
    return await preflight_migration(
        registry.client(source.id),
        registry.client(target.id),
        ids,
        args.get("database_mapping") or {},
    )
