"""Database and SQL tools: explore, format, execute (SQL Lab), create dataset (whose undo
deletes it, unless it was edited or a chart uses it since).
(Their specs and args: ``spec.py``; their views: ``view.py``.)

``superset_execute_sql`` is declared ``write`` (what it may do); each call is rated from
its parsed SQL (:func:`app.policy.sql_risk`, the spec's ``call_risk``), and so is a
virtual dataset's; at run time the database's own dialect reads it again
(:func:`_rated_alike_on`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from app.caps import cap_rows, json_size
from app.cpu import off_loop
from app.errors import SupersetError, SupersetNotFoundError, SupersetRefused, ToolError
from app.i18n import t
from app.policy import SqlVerdict, classify_sql
from app.policy.sql import RISK_ORDER
from app.superset.client import SupersetClient, own_limit
from app.superset.fingerprint import fingerprint, ids_by_uuid
from app.superset.migration import list_all
from app.superset.paths import api_path
from app.tools import import_undo
from app.tools.kit import Implementations, ToolDeps
from app.tools.sql import spec as specs
from app.tools.sql import view
from app.tools.sql.spec import (
    CreateDatasetArgs,
    ExecuteSqlArgs,
    ExploreDatabaseArgs,
    FormatSqlArgs,
)
from app.tools.undo_plan import Inverse, UndoPlan, UndoView

log = logging.getLogger(__name__)
runs = Implementations(specs.family)


def _readings(sql: str, backend: str | None) -> tuple[SqlVerdict, SqlVerdict]:
    return classify_sql(sql), classify_sql(sql, backend=backend)


async def _rated_alike_on(db: Mapping[str, Any], sql: str) -> None:
    """At run time the database's backend is known (Superset reports it): the text is
    read in that database's own dialect too. A reading worse than the one the call was
    rated (and confirmed) by stops it before anything runs."""
    backend = db.get("backend")
    rated, own = await off_loop(_readings, sql, str(backend) if backend else None)
    if RISK_ORDER[own.risk] > RISK_ORDER[rated.risk]:
        raise ToolError(
            f"refused: as database '{db.get('database_name')}' ({backend}) reads it, "
            f"{own.reason}; the call was rated {rated.risk} and nothing ran"
        )


async def _database(client: SupersetClient, database: str | None) -> dict[str, Any]:
    """The database named/numbered ``database``, or the only one when not given. A person
    asking for a database by id that Superset does not list for them gets Superset's own
    answer (its refusal, in its words), not a guess of ours."""
    if database:
        try:
            return await client.database_by_name_or_id(database)
        except SupersetNotFoundError:
            person = client.credentials.kind in ("person", "assertion")
            if person and database.strip().isdigit():
                return {"id": int(database), "database_name": database.strip(), "backend": None}
            raise
    dbs = await client.list_databases()
    if len(dbs) == 1:
        return dbs[0]
    names = ", ".join(str(d.get("database_name")) for d in dbs) or "none"
    raise SupersetError(f"which database? Give `database` (id or name); available: {names}")


def schema_choices(
    args: ExploreDatabaseArgs, result: dict[str, Any], lang: str
) -> list[tuple[str, str]]:
    """A database's schemas, when it has several, as the requests that list their tables."""
    schemas = [str(s) for s in result.get("schemas") or [] if s]
    database = (result.get("database") or {}).get("name")
    if result.get("level") != "schemas" or len(schemas) < 2 or not database:
        return []
    return [
        (schema, t("choose_schema", lang, schema=schema, database=database)) for schema in schemas
    ]


@runs.implements(
    specs.superset_explore_database, choices=schema_choices, view=view.explore_database
)
async def superset_explore_database(args: ExploreDatabaseArgs, deps: ToolDeps) -> dict[str, Any]:
    """One level of the database catalog: databases, schemas, tables or columns."""
    env, client = deps.env_client()
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


@runs.implements(specs.superset_format_sql, view=view.format_sql)
async def superset_format_sql(args: FormatSqlArgs, deps: ToolDeps) -> dict[str, Any]:
    """Superset's ``/api/v1/sqllab/format_sql/``; nothing runs."""
    env = deps.env()
    formatted = await deps.client(env.id).format_sql(args.sql)
    return {"env": env.id, "sql": formatted}


@runs.implements(specs.superset_execute_sql, view=view.execute_sql)
async def superset_execute_sql(args: ExecuteSqlArgs, deps: ToolDeps) -> dict[str, Any]:
    """SQL Lab's execute, after the database's own dialect rated the text no worse than
    the call was confirmed for. What comes back is within the settings' result caps
    (rows, a value's characters, bytes: ``app.caps.ResultCaps``), and ``cut`` says what
    they left out; ``row_count`` is how many rows SQL Lab returned."""
    env, client = deps.env_client()
    db = await _database(client, args.database)
    await _rated_alike_on(db, args.sql)
    limit = max(1, int(args.row_limit))
    try:
        res = await client.execute_sql(db["id"], args.sql, schema=args.schema, row_limit=limit)
    except SupersetRefused:  # Superset refused the account: the typed refusal, its words kept
        raise
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
    own_cap = await off_loop(own_limit, args.sql) or limit + 1
    columns = [c.get("column_name") or c.get("name") for c in res.get("columns") or []]
    caps = deps.settings.result_caps()
    kept = await off_loop(cap_rows, rows[:limit], caps, room=caps.max_bytes - json_size(columns))
    out = {
        "env": env.id,
        "database": db.get("database_name"),
        "status": res.get("status"),
        "columns": columns,
        "rows": kept.rows,
        "row_count": len(rows),
        # cut by the row limit, not by the query's own LIMIT (what the person asked for)
        "truncated": len(kept.rows) < len(rows) or (len(rows) >= limit and own_cap > limit),
    }
    if kept.cut:
        chars = caps.max_cell_chars if kept.cells_shortened else 0
        out["cut"] = {"rows": kept.rows_left_out, "cells": kept.cells_shortened,
                      "cell_chars": chars}  # fmt: skip
    return out


# ---- the undo of a new dataset: delete it -----------------------------------------------
DELETE_DATASET = "delete_dataset"


async def _after_create(
    deps: ToolDeps, client: SupersetClient, env_id: str, dataset_id: Any, name: str
) -> UndoPlan:
    """The dataset's undo: delete it; its fingerprint as created."""
    rows = await list_all(client, "dataset", ["id", "uuid"])
    uuid = next((str(r["uuid"]) for r in rows if str(r.get("id")) == str(dataset_id)), "")
    if not uuid:
        raise ToolError(f"the new dataset {dataset_id} is not listed on '{env_id}'")
    now = await fingerprint(client, {"dataset": [uuid]}, deps.settings.bundle_caps())
    summary = {"target_env": env_id,
               "datasets": [{"name": name, "uuid": uuid, "action": "delete"}]}  # fmt: skip
    return UndoPlan(DELETE_DATASET, {"created": {"dataset": [uuid]}}, now, summary, env_id)


async def _dataset_drift(change: UndoView, deps: ToolDeps) -> list[str]:
    """Edited or deleted since (as for an import), or a chart now uses it."""
    words = await import_undo.drift(change, deps)
    client = deps.client(change.env_id)
    found = await ids_by_uuid(client, "dataset", change.inverse["created"]["dataset"])
    for dataset_id in found.values():
        related = await client.get_json(api_path("/api/v1/dataset/{}/related_objects", dataset_id))
        for chart in (related.get("charts") or {}).get("result") or []:
            name = chart.get("slice_name") or chart.get("id")
            words.append(t("undo_drift_used_by", deps.lang, name=name))
    return words


async def _undo_create(change: UndoView, deps: ToolDeps) -> dict[str, Any]:
    client = deps.client(change.env_id)
    deleted = await import_undo.delete_created(client, change.inverse["created"])
    return {"env_id": change.env_id, **deleted}


UNDO_CREATE = Inverse(DELETE_DATASET, drift=_dataset_drift, run=_undo_create)


async def _no_such_dataset(args: CreateDatasetArgs, deps: ToolDeps) -> dict[str, Any]:
    """Before the card: a dataset of that name already on that database blocks the call
    (Superset would refuse it after the confirmation, as "Dataset could not be created")."""
    env, client = deps.env_client()
    db = await client.database_by_name_or_id(args.database)
    found = await client.existing_dataset(db["id"], args.table_name, args.schema)
    if found is None:
        return {}
    where = f"database '{db.get('database_name')}'" + (
        f" (schema {found['schema']})" if found.get("schema") else ""
    )
    url = f"{env.url}/explore/?datasource_type=table&datasource_id={found.get('id')}"
    return {"errors": [f"a dataset '{args.table_name}' already exists in {where}: {url}"]}


@runs.implements(
    specs.superset_create_dataset,
    preflight=_no_such_dataset,
    view=view.create_dataset,
    inverse=UNDO_CREATE,
)
async def superset_create_dataset(args: CreateDatasetArgs, deps: ToolDeps) -> dict[str, Any]:
    """``POST /api/v1/dataset/`` (physical, or virtual with ``sql``, read again in the
    database's own dialect first); the preflight refused a name already taken there."""
    env, client = deps.env_client()
    db = await client.database_by_name_or_id(args.database)
    if args.sql:  # Superset runs it on every chart render: rated as the card said, or not at all
        await _rated_alike_on(db, args.sql)
    created = await client.create_dataset(db["id"], args.table_name, args.schema, args.sql)
    unavailable = None
    try:  # the dataset exists now: a failed snapshot costs its undo, never the call's result
        deps.undo = await _after_create(deps, client, env.id, created.get("id"), args.table_name)
    except (ToolError, SupersetError) as exc:
        log.warning("dataset %s on %s: no undo: %s", created.get("id"), env.id, exc)
        unavailable = str(exc)
    return {
        **({"undo_unavailable": unavailable} if unavailable else {}),
        "env": env.id,
        "id": created.get("id"),
        "table_name": args.table_name,
        "kind": "virtual" if args.sql else "physical",
        "database": db.get("database_name"),
        "schema": args.schema,
        "url": f"{env.url}/explore/?datasource_type=table&datasource_id={created.get('id')}",
    }
