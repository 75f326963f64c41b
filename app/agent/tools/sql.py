"""Database and SQL tools: explore, format, execute (SQL Lab), create dataset, audit."""

from __future__ import annotations

import asyncio
from typing import Any

from app.agent.tools.base import ToolDeps, ToolFn
from app.errors import SupersetError
from app.superset.client import SupersetClient

MAX_ROWS_RETURNED = 200
OVER_BROAD = {
    ("all_database_access", None): "may query every database",
    ("all_datasource_access", None): "may read every dataset",
    ("can_write", "Role"): "may edit roles (privilege escalation)",
    ("can_write", "User"): "may edit users (privilege escalation)",
    ("menu_access", "Security"): "sees the Security menu",
}


async def _database(client: SupersetClient, database: str | None) -> dict[str, Any]:
    """The database named/numbered ``database``, or the only one when not given."""
    if database:
        return await client.database_by_name_or_id(database)
    dbs = await client.list_databases()
    if len(dbs) == 1:
        return dbs[0]
    names = ", ".join(str(d.get("database_name")) for d in dbs) or "none"
    raise SupersetError(f"which database? Give `database` (id or name); available: {names}")


async def superset_explore_database(args: Any, deps: ToolDeps) -> dict[str, Any]:
    """Browse what Superset can query: no args → databases; `database` → its schemas;
    + `schema` → its tables; + `table` → the table's columns and types."""
    env = deps.env(args.env_id)
    client = deps.registry.client(env.id)
    if not args.database:
        dbs = await client.list_databases()
        return {
            "env": env.id,
            "level": "databases",
            "databases": [
                {"id": d["id"], "name": d.get("database_name"), "backend": d.get("backend")}
                for d in dbs
            ],
        }
    db = await client.database_by_name_or_id(args.database)
    base = {"env": env.id, "database": {"id": db["id"], "name": db.get("database_name")}}
    if args.table:
        meta = await client.table_metadata(db["id"], args.table, args.schema)
        columns = [
            {"name": c.get("name") or c.get("column_name"), "type": str(c.get("type"))}
            for c in meta.get("columns", [])
        ]
        return base | {"level": "columns", "schema": args.schema, "table": args.table,
                       "columns": columns}  # fmt: skip
    if args.schema:
        tables = await client.tables(db["id"], args.schema)
        return base | {
            "level": "tables",
            "schema": args.schema,
            "tables": [{"name": t.get("value"), "type": t.get("type")} for t in tables],
        }
    return base | {"level": "schemas", "schemas": await client.schemas(db["id"])}


async def superset_format_sql(args: Any, deps: ToolDeps) -> dict[str, Any]:
    """Format (pretty-print) a SQL statement with Superset's formatter. Does not run it."""
    env = deps.env(args.env_id)
    formatted = await deps.registry.client(env.id).format_sql(args.sql)
    return {"env": env.id, "sql": formatted}


async def superset_execute_sql(args: Any, deps: ToolDeps) -> dict[str, Any]:
    """Run SQL in Superset's SQL Lab and return columns and rows (capped by
    `row_limit`). Superset refuses DML unless the database allows it; that refusal is
    reported as is."""
    env = deps.env(args.env_id)
    client = deps.registry.client(env.id)
    db = await _database(client, args.database)
    limit = max(1, int(args.row_limit))
    try:
        res = await client.execute_sql(db["id"], args.sql, schema=args.schema, row_limit=limit)
    except SupersetError as exc:
        hint = ""
        if "dml" in exc.message.lower() or exc.details.get("error_type") == "DML_NOT_ALLOWED_ERROR":
            hint = f" (database '{db.get('database_name')}' does not allow DML statements)"
        raise SupersetError(
            f"SQL Lab refused the query{hint}: {exc.message}",
            status_code=exc.status_code,
            **exc.details,
        ) from None
    rows = res.get("data") or []
    columns = [c.get("column_name") or c.get("name") for c in res.get("columns") or []]
    shown = rows[: min(limit, MAX_ROWS_RETURNED)]
    return {
        "env": env.id,
        "database": db.get("database_name"),
        "status": res.get("status"),
        "columns": columns,
        "rows": shown,
        "row_count": len(rows),
        "truncated": len(shown) < len(rows) or len(rows) >= limit,
    }


async def superset_create_dataset(args: Any, deps: ToolDeps) -> dict[str, Any]:
    """Create a dataset: physical (a table: `table_name`, optional `schema`) or virtual
    (give `sql`; `table_name` becomes the dataset's name)."""
    env = deps.env(args.env_id)
    client = deps.registry.client(env.id)
    db = await client.database_by_name_or_id(args.database)
    created = await client.create_dataset(db["id"], args.table_name, args.schema, args.sql)
    return {
        "env": env.id,
        "id": created.get("id"),
        "table_name": args.table_name,
        "kind": "virtual" if args.sql else "physical",
        "database": db.get("database_name"),
        "schema": args.schema,
        "url": f"{env.url}/explore/?datasource_type=table&datasource_id={created.get('id')}",
    }


def _flags(role: str, perms: list[dict[str, Any]]) -> list[str]:
    if role == "Admin":
        return []
    flags = []
    for p in perms:
        perm, view = p.get("permission_name"), p.get("view_menu_name")
        why = OVER_BROAD.get((perm, None)) or OVER_BROAD.get((perm, view))
        if why:
            flags.append(f"{perm} on {view}: {why}")
    return flags


async def superset_audit_permissions(args: Any, deps: ToolDeps) -> dict[str, Any]:
    """Audit Superset roles: each role's permission count and users, and flags for
    over-broad grants to non-Admin roles (all database/datasource access, editing roles
    or users, the Security menu). `role` limits the audit to one role."""
    env = deps.env(args.env_id)
    client = deps.registry.client(env.id)
    roles, users = await asyncio.gather(client.roles(), client.users())
    if args.role:
        roles = [r for r in roles if r["name"].lower() == args.role.lower()]
        if not roles:
            raise SupersetError(f"no role named {args.role!r} in Superset '{env.id}'")
    perms = await asyncio.gather(*(client.role_permissions(r["id"]) for r in roles))
    members: dict[int, list[str]] = {}
    for u in users:
        for r in u.get("roles") or []:
            members.setdefault(r["id"], []).append(u.get("username"))
    out = []
    for role, role_perms in zip(roles, perms, strict=True):
        out.append(
            {
                "id": role["id"],
                "name": role["name"],
                "permission_count": len(role_perms),
                "users": sorted(members.get(role["id"], [])),
                "flags": _flags(role["name"], role_perms),
            }
        )
    flagged = [r["name"] for r in out if r["flags"]]
    return {
        "env": env.id,
        "roles": out,
        "user_count": len(users),
        "flagged_roles": flagged,
        "summary": f"{len(out)} roles, {len(users)} users, {len(flagged)} with over-broad grants",
    }


TOOLS: dict[str, ToolFn] = {
    "superset_explore_database": superset_explore_database,
    "superset_format_sql": superset_format_sql,
    "superset_execute_sql": superset_execute_sql,
    "superset_create_dataset": superset_create_dataset,
    "superset_audit_permissions": superset_audit_permissions,
}
