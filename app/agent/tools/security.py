"""Security tools: the permission audit (roles, their users and over-broad grants).
(Its spec: ``app/policy/tools/security.py``.)"""

from __future__ import annotations

from typing import Any

from app.agent.tools.base import Family, ToolDeps
from app.policy.tools import security as specs
from app.policy.tools.security import AuditPermissionsArgs
from app.superset.permissions import audit_roles

family = Family(specs.family)


@family.implements(specs.superset_audit_permissions)
async def superset_audit_permissions(args: AuditPermissionsArgs, deps: ToolDeps) -> dict[str, Any]:
    """:func:`app.superset.permissions.audit_roles` and a one-line summary."""
    env = deps.env()
    roles, user_count = await audit_roles(deps.client(env.id), args.role, deps.lang)
    flagged = [r["name"] for r in roles if r["flags"]]
    return {
        "env": env.id,
        "roles": roles,
        "user_count": user_count,
        "flagged_roles": flagged,
        "summary": f"{len(roles)} roles, {user_count} users, {len(flagged)} with over-broad grants",
    }


TOOLS = family.tools
