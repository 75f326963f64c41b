"""The sandbox's second person: a Superset user who sees less than the admin.

``alice`` (first name Alice) holds Gamma and sql_lab, plus the role ``sales_north``: access
to the ``sales`` dataset only, and a row-level rule ``region = 'North'`` on it. Through the
agent on a person environment she sees what she sees in Superset: one database, the
sales charts filtered to the North (chart data always; SQL Lab too, as the sandbox turns
on ``RLS_IN_SQLLAB``), a refusal for any other table. Her password is generated once and
kept in the cache (``<cache>/alice-password``, mode 600), like the admin's.

:func:`seed_people` is idempotent (role, grant, user and rule are created only when
missing) and runs on the source instance (dev) during seeding, so the seeded templates
hold her and a warm start costs nothing.
"""

from __future__ import annotations

from typing import Any

from app.sandbox.common import CachePaths, SandboxError, read_or_create_secret
from app.sandbox.superset_rest import SupersetSession

PERSON = "alice"
PERSON_ROLE = "sales_north"
RLS_NAME = "sales: North only"
RLS_CLAUSE = "region = 'North'"
GRANTED_DATASET = "sales"


def person_password(paths: CachePaths) -> str:
    """alice's password (generated once, stored with mode 600 in the cache)."""
    return read_or_create_secret(paths.root / f"{PERSON}-password", 18)


def _one(rows: list[dict[str, Any]], key: str, value: object) -> dict[str, Any] | None:
    return next((r for r in rows if r.get(key) == value), None)


def _role_id(s: SupersetSession, name: str) -> int | None:
    rows = s.call("GET", "/api/v1/security/roles/search/", params={"q": "(page:0,page_size:100)"})[
        "result"
    ]
    found = _one(rows, "name", name)
    return int(found["id"]) if found else None


def _grant(s: SupersetSession, role_id: int, dataset_id: int) -> None:
    """Give the role ``datasource_access`` on the granted dataset (``[db].[table](id:N)``)."""
    by_name = "(page_size:10,filters:!((col:name,opr:eq,value:datasource_access)))"
    perms = s.call("GET", "/api/v1/security/permissions/", params={"q": by_name})["result"]
    if not perms:
        raise SandboxError("Superset has no datasource_access permission")
    of_perm = f"(page_size:100,filters:!((col:permission,opr:rel_o_m,value:{perms[0]['id']})))"
    pvms = s.call("GET", "/api/v1/security/permissions-resources/", params={"q": of_perm})
    suffix = f".[{GRANTED_DATASET}](id:{dataset_id})"
    wanted = [p for p in pvms["result"] if p["view_menu"]["name"].endswith(suffix)]
    if not wanted:
        raise SandboxError(f"no datasource_access on the {GRANTED_DATASET} dataset")
    s.call(
        "POST", f"/api/v1/security/roles/{role_id}/permissions",
        json={"permission_view_menu_ids": [int(wanted[0]["id"])]},
    )  # fmt: skip


def seed_people(s: SupersetSession, paths: CachePaths, datasets: dict[str, int]) -> list[str]:
    """Create alice, her role, its grant and its row-level rule where missing (``s``: the
    admin's session of the source instance; ``datasets``: table name -> dataset id).
    Returns what was created."""
    created: list[str] = []
    role_id = _role_id(s, PERSON_ROLE)
    if role_id is None:
        role_id = int(s.call("POST", "/api/v1/security/roles/", json={"name": PERSON_ROLE})["id"])
        _grant(s, role_id, datasets[GRANTED_DATASET])
        created.append(f"role:{PERSON_ROLE}")
    users = s.call("GET", "/api/v1/security/users/", params={"q": "(page_size:100)"})["result"]
    found = _one(users, "username", PERSON)
    if found is None:
        base = [_role_id(s, "Gamma"), _role_id(s, "sql_lab")]
        s.call("POST", "/api/v1/security/users/", json={
            "active": True, "username": PERSON, "first_name": "Alice", "last_name": "North",
            "email": f"{PERSON}@example.com", "password": person_password(paths),
            "roles": [r for r in base if r is not None] + [role_id],
        })  # fmt: skip
        created.append(f"user:{PERSON}")
    else:  # the cache's password file is the truth (a seeded template may be older)
        s.call("PUT", f"/api/v1/security/users/{found['id']}",
               json={"password": person_password(paths), "active": True})  # fmt: skip
    rules = s.call("GET", "/api/v1/rowlevelsecurity/", params={"q": "(page_size:100)"})["result"]
    if _one(rules, "name", RLS_NAME) is None:
        s.call("POST", "/api/v1/rowlevelsecurity/", json={
            "name": RLS_NAME, "filter_type": "Regular", "tables": [datasets[GRANTED_DATASET]],
            "roles": [role_id], "clause": RLS_CLAUSE, "group_key": "",
        })  # fmt: skip
        created.append("rls:North")
    return created
