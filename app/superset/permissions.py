"""Which Superset grants are over-broad for a role that is not Admin."""

from __future__ import annotations

from typing import Any

OVER_BROAD: dict[tuple[str, str | None], str] = {
    ("all_database_access", None): "may query every database",
    ("all_datasource_access", None): "may read every dataset",
    ("can_write", "Role"): "may edit roles (privilege escalation)",
    ("can_write", "User"): "may edit users (privilege escalation)",
    ("menu_access", "Security"): "sees the Security menu",
}


def over_broad_grants(role: str, perms: list[dict[str, Any]]) -> list[str]:
    """One line per over-broad grant of ``role`` (``permission_name``/``view_menu_name``
    rows as Superset lists them); Admin is expected to hold everything."""
    if role == "Admin":
        return []
    flags = []
    for p in perms:
        perm, view = str(p.get("permission_name")), p.get("view_menu_name")
        why = OVER_BROAD.get((perm, None)) or OVER_BROAD.get((perm, view))
        if why:
            flags.append(f"{perm} on {view}: {why}")
    return flags
