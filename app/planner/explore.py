"""The obvious next step of a database browse: tables asked for, schemas shown.

"Show the tables in database Sales" names no schema, so ``superset_explore_database``
answers with the database's schemas. That is a step, not the answer: with one schema the
planner lists its tables in the same turn; with several it asks which, the schemas
listed as plain lines (the buttons that pick one are offers the core puts on the events;
the answer "schema main in database examples" completes the request).
"""

from __future__ import annotations

from typing import Any

from app.planner.actions import doing
from app.planner.known import Known
from app.planner.markup import md_escape
from app.planner.phrases import tr
from app.planner.turn import EXPLORE as TOOL
from app.planner.turn import TABLES, Turn

MAX_SCHEMAS = 8


def tables_next(turn: Turn, known: Known) -> tuple[str, dict[str, Any] | None] | None:
    """(what to say, the call to make or None: a question) when the person asked for
    tables and the last step showed a database's schemas; None otherwise."""
    last = turn.last
    if last is None or last.tool != TOOL or last.result is None or not TABLES.search(turn.text):
        return None
    result = last.result
    database = (result.get("database") or {}).get("name")
    schemas = [str(s) for s in result.items("schemas") if s]
    if result.get("level") != "schemas" or not database or not schemas:
        return None
    base = {"database": database, "env_id": result.get("env") or last.args.get("env_id")}
    base = {k: v for k, v in base.items() if v}
    lang = turn.lang
    if len(schemas) == 1:
        args = {**base, "schema": schemas[0]}
        if turn.has_call(TOOL, args):
            return None
        return doing(TOOL, args, lang, known.can(TOOL, lang)), args
    shown = schemas[:MAX_SCHEMAS]
    head = tr(
        lang,
        f"{md_escape(database)} has {len(schemas)} schemas. Tables of which one?",
        f"В базе {md_escape(database)} схем: {len(schemas)}. Таблицы какой из них показать?",
    )
    listed = "\n".join(f"- {md_escape(s)}" for s in shown)
    return f"{head}\n\n{listed}", None
