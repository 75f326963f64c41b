"""Security tools: the permission audit (roles, their users and over-broad grants)."""

from __future__ import annotations

from typing import Any

from app.agent.tools.base import Ru, ToolArgs, ToolDeps, arg, env_field
from app.agent.tools.declare import Family
from app.policy import CardLine, Phrase
from app.superset.permissions import audit_roles

family = Family("security")


class AuditPermissionsArgs(ToolArgs):
    env_id: str | None = env_field()
    role: str | None = arg(
        "Superset role to audit; omit to audit every role.",
        Ru("Роль", "Роль Superset, которую проверить; пусто — все роли."),
        default=None,
    )


@family.tool(
    risk="read",
    can=Phrase("audit permissions", "проверить права доступа"),
    example=Phrase("Who has access to which datasets?", "У кого есть доступ к каким датасетам?"),
    card=CardLine(en="Audit permissions of {role} in {env}", ru="Проверить права {role} в {env}"),
)
async def superset_audit_permissions(args: AuditPermissionsArgs, deps: ToolDeps) -> dict[str, Any]:
    """Audits roles and permissions in one environment: each role's permission count and
    users, and over-broad grants to non-Admin roles (all database or datasource access,
    editing roles or users, the Security menu). `role` limits it to one role. Use for
    access questions. Returns per-role findings."""
    env = deps.env(args.env_id)
    roles, user_count = await audit_roles(deps.registry.client(env.id), args.role, deps.lang)
    flagged = [r["name"] for r in roles if r["flags"]]
    return {
        "env": env.id,
        "roles": roles,
        "user_count": user_count,
        "flagged_roles": flagged,
        "summary": f"{len(roles)} roles, {user_count} users, {len(flagged)} with over-broad grants",
    }


TOOLS = family.tools
