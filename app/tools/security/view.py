"""How the permission audit is shown: one row a role (its permission count, users and
over-broad grants)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.views import Links, TableView, dict_table


def audit_permissions(result: Mapping[str, Any], links: Links) -> TableView:
    rows = [
        {
            "name": r.get("name"),
            "permission_count": r.get("permission_count"),
            "users": ", ".join(map(str, r.get("users") or [])),
            "flags": "; ".join(map(str, r.get("flags") or [])),
        }
        for r in result.get("roles") or []
    ]
    return dict_table(rows, ("name", "permission_count", "users", "flags"), csv_name="roles")
