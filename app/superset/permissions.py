"""Superset's roles as an auditor reads them: each role's permissions and users, and which
grants are over-broad for a role that is not Admin."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from app.errors import SupersetError
from app.i18n import catalog, said

if TYPE_CHECKING:
    from app.superset.client import SupersetClient

# (permission, view or None for any) -> why it is over-broad: its key in app/strings.toml
# [over_broad] (English and Russian)
OVER_BROAD: dict[tuple[str, str | None], str] = {
    ("all_database_access", None): "all_database_access",
    ("all_datasource_access", None): "all_datasource_access",
    ("can_write", "Role"): "can_write_role",
    ("can_write", "User"): "can_write_user",
    ("menu_access", "Security"): "menu_access_security",
}
WHY = catalog("over_broad")


def over_broad_grants(role: str, perms: list[dict[str, Any]], lang: str = "en") -> list[str]:
    """One line per over-broad grant of ``role`` (``permission_name``/``view_menu_name``
    rows as Superset lists them), why in ``lang``; Admin is expected to hold everything."""
    if role == "Admin":
        return []
    flags = []
    for p in perms:
        perm, view = str(p.get("permission_name")), p.get("view_menu_name")
        why = OVER_BROAD.get((perm, None)) or OVER_BROAD.get((perm, view))
        if why:
            grant = perm if view == perm else f"{perm} on {view}"  # (all_* name themselves)
            flags.append(f"{grant}: {said(WHY[why], lang)}")
    return flags


async def audit_roles(
    client: SupersetClient, role: str | None = None, lang: str = "en"
) -> tuple[list[dict[str, Any]], int]:
    """Per role (only ``role`` when given, matched case-insensitively): id, name,
    permission count, its users and its over-broad grants (said in ``lang``); and the
    number of users."""
    roles, users = await asyncio.gather(client.roles(), client.users())
    if role:
        roles = [r for r in roles if r["name"].lower() == role.lower()]
        if not roles:
            raise SupersetError(f"no role named {role!r} in Superset '{client.env.id}'")
    perms = await asyncio.gather(*(client.role_permissions(r["id"]) for r in roles))
    members: dict[int, list[str]] = {}
    for u in users:
        for r in u.get("roles") or []:
            members.setdefault(r["id"], []).append(str(u.get("username") or ""))
    audited = [
        {
            "id": r["id"],
            "name": r["name"],
            "permission_count": len(role_perms),
            "users": sorted(members.get(r["id"], [])),
            "flags": over_broad_grants(r["name"], role_perms, lang),
        }
        for r, role_perms in zip(roles, perms, strict=True)
    ]
    return audited, len(users)
