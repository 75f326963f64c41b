"""Which SQL functions a read may call: the allow-list of pure functions and the list of
functions with side effects (pure data in ``sql_functions.toml`` beside this module, read
once at import; used by :mod:`app.policy.sql`).

* **Dangerous** (rated ``delete``): functions that act outside the query's result —
  end or signal backends, change settings, take locks, sleep, touch server files or large
  objects, run SQL on another connection or a shell, move sequences, notify listeners,
  reset statistics, drive replication or backups. Sources: PostgreSQL's "System
  Administration Functions", "Sequence Manipulation Functions", "Large Objects",
  "Advisory Lock Functions", the dblink, adminpack and pg_stat_statements extensions;
  MySQL's locking, sleep and file functions; SQLite's shell/extension functions;
  ClickHouse and DuckDB table functions that read files or URLs; SQL Server's
  ``OPEN*`` rowset functions; Oracle's ``DBMS_*`` / ``UTL_*`` packages.
* **Pure** (rated ``read``): aggregates, window functions, math, string, date/time,
  casts, conditionals, JSON/array accessors and read-only catalog lookups. A function on
  neither list is unknown: a user-defined function may write, so it counts as ``write``.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from sqlglot import exp

with Path(__file__).with_name("sql_functions.toml").open("rb") as _file:
    _LISTS = tomllib.load(_file)

DANGEROUS_FUNCTIONS: frozenset[str] = frozenset(_LISTS["dangerous"]["functions"])
DANGEROUS_PREFIXES: tuple[str, ...] = tuple(_LISTS["dangerous"]["prefixes"])
PURE_FUNCTIONS: frozenset[str] = frozenset(_LISTS["pure"]["functions"])
# sqlglot's typed built-ins (node class names), each computing a value from its arguments
# only; a typed node not listed is judged by its SQL name
PURE_NODE_CLASSES: frozenset[str] = frozenset(_LISTS["pure"]["node_classes"].split())


def function_verdict(name: str, qualifier: str | None = None) -> str | None:
    """``"delete"`` for a known side-effect function, ``None`` for a pure one, ``"write"``
    for anything else. ``qualifier`` is the schema or package (``dbms_pipe`` in
    ``dbms_pipe.send_message``)."""
    low = name.lower()
    owner = (qualifier or "").lower()
    if low in DANGEROUS_FUNCTIONS or low.startswith(DANGEROUS_PREFIXES):
        return "delete"
    if owner.startswith(DANGEROUS_PREFIXES):
        return "delete"
    if owner in ("", "pg_catalog", "public", "information_schema") and low in PURE_FUNCTIONS:
        return None
    return "write"


def _function_name(node: exp.Func) -> tuple[str, str | None]:
    name = node.name if isinstance(node, exp.Anonymous) else node.sql_name()
    parent = node.parent
    qualifier = None
    if isinstance(parent, exp.Dot) and parent.expression is node:
        qualifier = parent.this.name if isinstance(parent.this, exp.Expression) else None
    return str(name or "").lower(), qualifier


def function_risk(node: exp.Func) -> tuple[str, str] | None:
    """``(risk, reason)`` of one function call in a parse tree, or None for a pure one
    (a typed pure built-in, an aggregate, a name on the pure list)."""
    if not isinstance(node, exp.Anonymous) and type(node).__name__ in PURE_NODE_CLASSES:
        return None
    if isinstance(node, exp.AggFunc) and not type(node).__name__.startswith("AI"):
        return None
    name, qualifier = _function_name(node)
    verdict = function_verdict(name, qualifier)
    shown = f"{qualifier}.{name}" if qualifier else name
    if verdict == "delete":
        return "delete", f"calls {shown}(), which has side effects"
    if verdict == "write":
        return "write", f"calls {shown}(), which is not known to be read-only"
    return None
