"""Security tools: the permission audit (roles, their users and over-broad grants).
(Its spec: ``spec.py``; its view: ``view.py``.)"""

from __future__ import annotations

from typing import Any

from app.superset.permissions import audit_roles
from app.tools.kit import Implementations, ToolDeps
from app.tools.security import spec as specs
from app.tools.security import view
from app.tools.security.spec import AuditPermissionsArgs

runs = Implementations(specs.family)


@runs.implements(specs.superset_audit_permissions, view=view.audit_permissions)
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
