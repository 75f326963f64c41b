"""Risk of a SQL text, from its parse tree (sqlglot), never from regexes on the text.

* read: SELECT / UNION / INTERSECT / EXCEPT / VALUES / WITH … SELECT, EXPLAIN
  (without ANALYZE), SHOW, DESCRIBE, USE;
* write: INSERT, UPDATE, MERGE, CREATE (incl. OR REPLACE, CTAS), REPLACE, COPY,
  SELECT … INTO, SET, COMMENT, ANALYZE;
* delete: DELETE, DROP, TRUNCATE, ALTER, GRANT/REVOKE, KILL.

Several statements → the worst. Every node of the tree counts, so a data-modifying
CTE (``WITH d AS (DELETE … RETURNING *) SELECT …``) is delete. ``EXPLAIN ANALYZE``
runs its statement, so it takes that statement's risk. Empty, comment-only,
unparsable text and any statement kind not listed → delete (fail safe).
"""

from __future__ import annotations

import re
from typing import Literal

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

Risk = Literal["read", "write", "delete"]
RISK_ORDER: dict[str, int] = {"read": 0, "write": 1, "delete": 2}

# Dialects tried in turn when the generic one cannot parse the text.
_DIALECTS: tuple[str | None, ...] = (None, "postgres", "mysql")


def _types(*names: str) -> tuple[type[exp.Expression], ...]:
    # sqlglot renames node classes between versions; take the ones this version has.
    return tuple(getattr(exp, n) for n in names if isinstance(getattr(exp, n, None), type))


_READ_ROOTS = _types("Select", "SetOperation", "Union", "Subquery", "Values", "Describe", "Show")
_READ_ROOTS += _types("Use")
_WRITE_NODES = _types("Insert", "Update", "Merge", "Create", "Copy", "Set", "Comment", "Analyze")
_WRITE_NODES += _types("LoadData", "Cache", "Uncache")
_DELETE_NODES = _types("Delete", "Drop", "TruncateTable", "Alter", "AlterTable", "Grant")
_DELETE_NODES += _types("Revoke", "Kill")

_READ_COMMANDS = frozenset({"SHOW", "DESC", "DESCRIBE"})
_WRITE_COMMANDS = frozenset({"REPLACE"})
_EXPLAIN_OPTIONS = re.compile(
    r"\s*(?:\([^)]*\)\s*)?"
    r"(?:(?:ANALY[SZ]E|VERBOSE|COSTS|BUFFERS|EXTENDED|PARTITIONS|FORMATTED|"
    r"FORMAT\s*=?\s*\w+|QUERY\s+PLAN|PLAN\s+FOR|FOR)\b\s*)*",
    re.IGNORECASE,
)


def worst(*risks: Risk) -> Risk:
    """The most severe of the given risks (read < write < delete)."""
    return max(risks, key=RISK_ORDER.__getitem__)


def _parse(sql: str, dialect: str | None) -> list[exp.Expression | None] | None:
    dialects = (dialect,) if dialect else _DIALECTS
    for d in dialects:
        try:
            return sqlglot.parse(sql, read=d)
        except (ParseError, TokenError, RecursionError):
            continue
    return None


def _command_risk(node: exp.Command, dialect: str | None) -> Risk:
    name = str(node.this or "").strip().upper()
    rest = node.expression.name if isinstance(node.expression, exp.Expression) else ""
    if name in _READ_COMMANDS:
        return "read"
    if name in _WRITE_COMMANDS:
        return "write"
    if name == "EXPLAIN":
        options = _EXPLAIN_OPTIONS.match(rest)
        head = options.group(0) if options else ""
        if re.search(r"ANALY[SZ]E", head, re.IGNORECASE):
            return worst("read", sql_risk(rest[len(head) :], dialect=dialect))
        return "read"
    return "delete"


def _node_risk(node: exp.Expression, dialect: str | None) -> Risk:
    if isinstance(node, exp.Command):
        return _command_risk(node, dialect)
    if isinstance(node, _DELETE_NODES):
        return "delete"
    if isinstance(node, _WRITE_NODES):
        return "write"
    if isinstance(node, exp.Select) and node.args.get("into"):
        return "write"
    return "read"


def _statement_risk(stmt: exp.Expression, dialect: str | None) -> Risk:
    risk: Risk = _node_risk(stmt, dialect)
    if risk == "read" and not isinstance(stmt, (*_READ_ROOTS, exp.Command)):
        return "delete"  # a statement kind we do not know: fail safe
    for node in stmt.walk():
        if node is not stmt and isinstance(node, exp.Expression):
            risk = worst(risk, _node_risk(node, dialect))
            if risk == "delete":
                break
    return risk


def sql_risk(sql: str | None, *, dialect: str | None = None) -> Risk:
    """Classify SQL text as read, write or delete (see the module docstring)."""
    if not sql or not sql.strip():
        return "delete"
    statements = _parse(sql, dialect)
    if statements is None:
        return "delete"
    present = [s for s in statements if s is not None]
    if not present:
        return "delete"
    return worst(*(_statement_risk(s, dialect) for s in present))
