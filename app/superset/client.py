"""The Superset REST client: Superset's endpoints as typed methods over one
:class:`~app.superset.http_session.SupersetSession` (auth, CSRF, pooled connections,
typed errors)."""

from __future__ import annotations

import json as jsonlib
import re
from functools import lru_cache
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, TokenError

from app.cpu import off_loop
from app.errors import SupersetError, SupersetNotFoundError, SupersetUnavailableError
from app.superset import rison
from app.superset.http_session import SupersetSession
from app.superset.paths import api_path
from app.vocab import SQL_MAX_CLASSIFIED_TOKENS as MAX_CLASSIFIED_TOKENS

_LIMIT_WORD = re.compile(r"\b(?:limit|fetch)\b", re.IGNORECASE)

DASHBOARD_COLUMNS = [
    "id",
    "dashboard_title",
    "slug",
    "url",
    "published",
    "changed_on_utc",
    "owners.first_name",
    "owners.last_name",
]


class SupersetClient(SupersetSession):
    """Talks to one Superset environment. Safe to share between concurrent tasks. Ids go
    into a path only through :func:`app.superset.paths.api_path` (checked and quoted)."""

    async def _result(
        self, template: str, *ids: int | str, params: dict[str, Any] | None = None
    ) -> Any:
        """``GET`` the path ``template`` filled with ``ids``; the answer's ``result``."""
        return (await self.get_json(api_path(template, *ids), params=params))["result"]

    # --- dashboards and charts -----------------------------------------------------------
    async def list_dashboards(
        self, query: str = "", page: int = 0, page_size: int = 25
    ) -> dict[str, Any]:
        """``{count, result:[…]}``; ``query`` matches title or slug (case-insensitive)."""
        q: dict[str, Any] = {
            "columns": DASHBOARD_COLUMNS,
            "order_column": "dashboard_title",
            "order_direction": "asc",
            "page": max(page, 0),
            "page_size": max(1, min(page_size, 100)),
        }
        if query:
            q["filters"] = [{"col": "dashboard_title", "opr": "title_or_slug", "value": query}]
        return await self.get_json("/api/v1/dashboard/", params={"q": rison.dumps(q)})

    async def get_dashboard(self, id_or_slug: int | str) -> dict[str, Any]:
        return await self._result("/api/v1/dashboard/{}", id_or_slug)

    async def dashboard_charts(self, id_or_slug: int | str) -> list[dict[str, Any]]:
        return await self._result("/api/v1/dashboard/{}/charts", id_or_slug)

    async def dashboard_datasets(self, id_or_slug: int | str) -> list[dict[str, Any]]:
        return await self._result("/api/v1/dashboard/{}/datasets", id_or_slug)

    async def remove_dashboard(self, dashboard_id: int) -> Any:
        return await self.request("DELETE", api_path("/api/v1/dashboard/{}", dashboard_id))

    async def get_chart(self, chart_id: int) -> dict[str, Any]:
        return await self._result("/api/v1/chart/{}", chart_id)

    async def chart_data(self, chart_id: int) -> dict[str, Any]:
        """Run the chart's saved query context (``GET /api/v1/chart/{id}/data/``)."""
        return await self.get_json(api_path("/api/v1/chart/{}/data/", chart_id))

    async def get_dataset(self, dataset_id: int) -> dict[str, Any]:
        return await self._result("/api/v1/dataset/{}", dataset_id)

    # --- export / import ---------------------------------------------------------------
    async def export_dashboards(self, ids: list[int]) -> bytes:
        """A zip of YAML files (dashboards, charts, datasets, databases)."""
        resp = await self.request(
            "GET", "/api/v1/dashboard/export/", params={"q": rison.dumps(list(ids))}
        )
        return resp.content

    async def import_dashboards(
        self,
        zip_bytes: bytes,
        *,
        overwrite: bool = True,
        passwords: dict[str, str] | None = None,
    ) -> Any:
        data = {"overwrite": "true" if overwrite else "false"}
        if passwords:
            data["passwords"] = jsonlib.dumps(passwords)
        resp = await self.request(
            "POST",
            "/api/v1/dashboard/import/",
            files={"formData": ("dashboards.zip", zip_bytes, "application/zip")},
            data=data,
        )
        return resp.json() if resp.content else {}

    # --- databases ---------------------------------------------------------------------
    async def list_databases(self) -> list[dict[str, Any]]:
        q = rison.dumps({"page": 0, "page_size": 100, "order_column": "database_name"})
        return (await self.get_json("/api/v1/database/", params={"q": q}))["result"]

    async def database_by_name_or_id(self, database: str | int) -> dict[str, Any]:
        """A database row by id or (case-insensitive) name; SupersetNotFoundError if none."""
        dbs = await self.list_databases()
        key = str(database).strip()
        for db in dbs:
            if str(db.get("id")) == key or str(db.get("database_name", "")).lower() == key.lower():
                return db
        names = ", ".join(str(d.get("database_name")) for d in dbs) or "none"
        raise SupersetNotFoundError(
            f"no database {key!r} in Superset '{self.env.id}'; databases: {names}",
            status_code=404,
        )

    async def schemas(self, db_id: int) -> list[str]:
        return await self._result("/api/v1/database/{}/schemas/", db_id)

    async def tables(self, db_id: int, schema: str) -> list[dict[str, Any]]:
        q = rison.dumps({"schema_name": schema, "force": False})
        return await self._result("/api/v1/database/{}/tables/", db_id, params={"q": q})

    async def table_metadata(
        self, db_id: int, table: str, schema: str | None = None
    ) -> dict[str, Any]:
        params = {"name": table}
        if schema:
            params["schema"] = schema
        return await self.get_json(
            api_path("/api/v1/database/{}/table_metadata/", db_id), params=params
        )

    # --- SQL Lab and datasets ----------------------------------------------------------
    async def execute_sql(
        self, database_id: int, sql: str, schema: str | None = None, row_limit: int = 1000
    ) -> dict[str, Any]:
        """Run ``sql`` synchronously in SQL Lab, at most ``row_limit`` rows, and no more than
        the query's own LIMIT: SQL Lab (6.1) rewrites a SELECT's LIMIT to ``queryLimit + 1``,
        so "... limit 2" would come back with ``row_limit`` rows. A failing statement is a
        SupersetError (not transient): SQL Lab answers engine errors and DML refusals with
        500."""
        own = await off_loop(own_limit, sql)  # a parse: never on the event loop
        body: dict[str, Any] = {
            "database_id": database_id,
            "sql": sql,
            "runAsync": False,
            "queryLimit": row_limit if own is None else max(1, min(own, row_limit)),
            "select_as_cta": False,
            "expand_data": True,
        }
        if schema:
            body["schema"] = schema
        try:
            return await self.post_json("/api/v1/sqllab/execute/", body)
        except SupersetUnavailableError as exc:
            if exc.status_code is not None and exc.details.get("error_type"):
                raise SupersetError(
                    exc.message, status_code=exc.status_code, **exc.details
                ) from None
            raise

    async def format_sql(self, sql: str) -> str:
        return (await self.post_json("/api/v1/sqllab/format_sql/", {"sql": sql}))["result"]

    async def create_dataset(
        self,
        database_id: int,
        table_name: str,
        schema: str | None = None,
        sql: str | None = None,
    ) -> dict[str, Any]:
        """Create a physical (no ``sql``) or virtual dataset; ``{id, data}``."""
        body: dict[str, Any] = {"database": database_id, "table_name": table_name}
        if schema:
            body["schema"] = schema
        if sql:
            body["sql"] = sql
        return await self.post_json("/api/v1/dataset/", body)

    async def existing_dataset(
        self, database_id: int, table_name: str, schema: str | None = None
    ) -> dict[str, Any] | None:
        """A dataset named ``table_name`` on database ``database_id``, in ``schema`` (in
        any schema when None), if there is one."""
        for found in await self.find_datasets(table_name):
            same_db = (found.get("database") or {}).get("id") == database_id
            if same_db and (schema is None or found.get("schema") == schema):
                return found
        return None

    async def find_datasets(self, table_name: str) -> list[dict[str, Any]]:
        q = rison.dumps(
            {"filters": [{"col": "table_name", "opr": "eq", "value": table_name}], "page_size": 100}
        )
        return (await self.get_json("/api/v1/dataset/", params={"q": q}))["result"]

    # --- security ----------------------------------------------------------------------
    async def roles(self) -> list[dict[str, Any]]:
        q = rison.dumps({"page": 0, "page_size": 100})
        return (await self.get_json("/api/v1/security/roles/search/", params={"q": q}))["result"]

    async def role_permissions(self, role_id: int) -> list[dict[str, Any]]:
        return await self._result("/api/v1/security/roles/{}/permissions/", role_id)

    async def users(self) -> list[dict[str, Any]]:
        q = rison.dumps({"page": 0, "page_size": 100})
        return (await self.get_json("/api/v1/security/users/", params={"q": q}))["result"]


@lru_cache(maxsize=64)
def own_limit(sql: str) -> int | None:
    """The row limit a single SELECT sets itself (``LIMIT n``, ``FETCH FIRST n ROWS``), or
    None (none, not a number, several statements, not parsable, or too long to parse:
    over ``MAX_CLASSIFIED_TOKENS`` tokens). CPU-bound: callers on the event loop run it
    with :func:`app.cpu.off_loop`."""
    if not _LIMIT_WORD.search(sql):
        return None
    try:
        tokens = sqlglot.tokenize(sql)
        if len(tokens) > MAX_CLASSIFIED_TOKENS:
            return None
        statements = [s for s in Dialect.get_or_raise(None).parser().parse(tokens, sql) if s]
    except (ParseError, TokenError, RecursionError):
        return None
    if len(statements) != 1:
        return None
    limit = statements[0].args.get("limit")
    if isinstance(limit, exp.Limit):
        value = limit.expression
    elif isinstance(limit, exp.Fetch):
        value = limit.args.get("count")
    else:
        return None
    if isinstance(value, exp.Literal) and not value.is_string and str(value.this).isdigit():
        return int(value.this)
    return None
