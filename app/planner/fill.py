"""Arguments of a tool the planner has no extractor for, filled by their names.

The contract's tools have one extractor each (:data:`app.planner.args.EXTRACTORS`);
any other declared tool gets its arguments from the request and the page by field name,
with the same readers: ``dashboard_id``/``dashboard_ids`` (ids, a slug, or the page's
dashboard), ``env_id``, ``source_env``/``target_env``, ``sql``, ``query`` (search words),
``database``/``schema``/``table``/``table_name``, ``role``. A required text field no name
covers takes the request's first quoted text. Anything else keeps its default; a
required argument left empty is asked for (the planner never guesses).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.planner.args import search_args, sql_text
from app.planner.keywords import AFTER_DB, AFTER_ROLE, AFTER_SCHEMA, AFTER_TABLE, STOP
from app.planner.request import Request

_NAMED: dict[str, Callable[[Request], Any]] = {
    "sql": sql_text,
    "query": lambda req: search_args(req)["query"],
    "database": lambda req: req.name_after(AFTER_DB, stop=STOP),
    "schema": lambda req: req.name_after(AFTER_SCHEMA, stop=STOP),
    "table": lambda req: req.name_after(AFTER_TABLE, stop=STOP),
    "table_name": lambda req: req.name_after(AFTER_TABLE, stop=STOP),
    "role": lambda req: req.name_after(AFTER_ROLE, stop=STOP),
}


def _required(fields: Mapping[str, Any], name: str) -> bool:
    info = fields.get(name)
    return bool(info is not None and info.is_required())


def by_name(req: Request, fields: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments ``fields`` (name → pydantic FieldInfo) name, as far as the request
    and the page say them (``None`` where they do not)."""
    args: dict[str, Any] = {}
    from_ctx = False
    if "dashboard_id" in fields or "dashboard_ids" in fields:
        required = _required(fields, "dashboard_id") or _required(fields, "dashboard_ids")
        refs, from_ctx = req.dashboards(required=required)
        if "dashboard_id" in fields:
            args["dashboard_id"] = refs[0] if refs else None
        else:
            args["dashboard_ids"] = refs or None
    if "source_env" in fields or "target_env" in fields:
        source, target = req.source_target(object_from_context=from_ctx)
        args |= {"source_env": source, "target_env": target}
    if "env_id" in fields:
        args["env_id"] = req.env_id(object_from_context=from_ctx)
    for name, read in _NAMED.items():
        if name in fields:
            args[name] = read(req)
    for name, info in fields.items():
        if name not in args and info.is_required() and info.annotation is str and req.quoted:
            args[name] = req.quoted[0]
            break
    return {k: v for k, v in args.items() if k in fields}
