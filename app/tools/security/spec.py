"""Security tools' specs: the permission audit (roles, their users and over-broad grants).
(Implementation: ``run.py`` beside it.)"""

from __future__ import annotations

from app.tools.args import Ru, ToolArgs, env_field, optional
from app.tools.declare import Family

family = Family("security")


class AuditPermissionsArgs(ToolArgs):
    env_id: str | None = env_field()
    role: str | None = optional(
        "Superset role to audit; omit to audit every role.",
        Ru("Роль", "Роль Superset, которую проверить; пусто — все роли."),
    )


superset_audit_permissions = family.spec(
    "superset_audit_permissions", AuditPermissionsArgs, "read", pages=("dataset",),
    description="""Audits roles and permissions in one environment: each role's permission
    count and users, and over-broad grants to non-Admin roles (all database or datasource
    access, editing roles or users, the Security menu). `role` limits it to one role. Use
    for access questions. Returns per-role findings.""",
    en=("audit permissions", "Who has access to which datasets?",
        "Audit permissions of {role} in {env}"),
    ru=("проверить права доступа", "У кого есть доступ к каким датасетам?",
        "Проверить права {role} в {env}"),
)  # fmt: skip
