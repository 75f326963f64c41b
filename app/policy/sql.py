"""Risk of a SQL text, from sqlglot's tokens and parse tree, never from regexes on the text.

* read: SELECT / UNION / INTERSECT / EXCEPT / VALUES / WITH … SELECT, EXPLAIN
  (without ANALYZE), SHOW, DESCRIBE, USE — calling only pure functions;
* write: INSERT, UPDATE, MERGE, CREATE (incl. OR REPLACE, CTAS), REPLACE, COPY to/from
  the client, SELECT … INTO, SELECT … FOR UPDATE, SET, COMMENT, ANALYZE; a function
  that is on neither list of :mod:`app.policy.sql_functions` (it may write);
* delete (dangerous): DELETE, DROP, TRUNCATE, ALTER, GRANT/REVOKE, KILL, COPY … PROGRAM
  or a server file, a known side-effect function (``pg_terminate_backend``,
  ``dblink_exec``, ``set_config``, ``nextval``, ``pg_sleep`` …), a MySQL executable
  comment ``/*! … */`` (MySQL runs its content), and text that does not parse.

``EXPLAIN`` is read only from the parsed tokens: its options are read with comments
removed (``EXPLAIN /* x */ ANALYZE``, ``EXPLAIN/**/ANALYZE`` and ``EXPLAIN -- c⏎ANALYZE``
are all ANALYZE), and ``EXPLAIN ANALYZE <stmt>`` runs ``<stmt>``, so it takes that
statement's risk. Several statements → the worst. Every node of the tree counts, so a
data-modifying CTE is delete. The text is parsed as generic SQL, PostgreSQL and MySQL
and the worst reading wins (a quote or comment rule that differs between engines cannot
hide a statement); a dialect that cannot parse the text is skipped, and if none can, the
text is dangerous.

:func:`classify_sql` returns a :class:`SqlVerdict` (risk and the reason, e.g. "calls
pg_terminate_backend, which has side effects"); :func:`sql_risk` returns the risk only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from app.policy.sql_functions import PURE_NODE_CLASSES, function_verdict

Risk = Literal["read", "write", "delete"]
RISK_ORDER: dict[str, int] = {"read": 0, "write": 1, "delete": 2}

# Each text is read in all of these; the worst reading wins.
_DIALECTS: tuple[str | None, ...] = (None, "postgres", "mysql")


@dataclass(frozen=True)
class SqlVerdict:
    """The risk of a SQL text and the reason for it (shown on the confirmation card)."""

    risk: Risk
    reason: str


def _types(*names: str) -> tuple[type[exp.Expression], ...]:
    # sqlglot renames node classes between versions; take the ones this version has.
    return tuple(getattr(exp, n) for n in names if isinstance(getattr(exp, n, None), type))


_READ_ROOTS = _types("Select", "SetOperation", "Union", "Subquery", "Values", "Describe", "Show")
_READ_ROOTS += _types("Use", "Semicolon")
_WRITE_NODES = _types("Insert", "Update", "Merge", "Create", "Set", "Comment", "Analyze")
_WRITE_NODES += _types("LoadData", "Cache", "Uncache")
_DELETE_NODES = _types("Delete", "Drop", "TruncateTable", "Alter", "AlterTable", "Grant")
_DELETE_NODES += _types("Revoke", "Kill")
_IGNORED_ROOTS = _types("Semicolon")

_READ_COMMANDS = frozenset({"SHOW", "DESC", "DESCRIBE"})
_WRITE_COMMANDS = frozenset({"REPLACE"})
_EXPLAIN_WORDS = frozenset(
    {"ANALYZE", "ANALYSE", "VERBOSE", "EXTENDED", "PARTITIONS", "FORMATTED", "QUERY", "PLAN"}
)
_FALSE_WORDS = frozenset({"FALSE", "OFF", "0"})
_CLIENT_STREAMS = frozenset({"STDIN", "STDOUT"})
MAX_EXPLAIN_DEPTH = 2  # EXPLAIN ANALYZE EXPLAIN ANALYZE … deeper than this is dangerous

EMPTY = SqlVerdict("delete", "no SQL statement to run")
UNPARSABLE = SqlVerdict("delete", "the SQL could not be parsed")
READ = SqlVerdict("read", "read-only query")


def worst(*risks: Risk) -> Risk:
    """The most severe of the given risks (read < write < delete)."""
    return max(risks, key=RISK_ORDER.__getitem__)


def _worst(verdicts: Iterable[SqlVerdict]) -> SqlVerdict:
    best: SqlVerdict | None = None
    for verdict in verdicts:  # the first verdict reaching the worst level keeps its reason
        if best is None or RISK_ORDER[verdict.risk] > RISK_ORDER[best.risk]:
            best = verdict
    return best or READ


# --- functions --------------------------------------------------------------------------
def _function_name(node: exp.Func) -> tuple[str, str | None]:
    name = node.name if isinstance(node, exp.Anonymous) else node.sql_name()
    parent = node.parent
    qualifier = None
    if isinstance(parent, exp.Dot) and parent.expression is node:
        qualifier = parent.this.name if isinstance(parent.this, exp.Expression) else None
    return str(name or "").lower(), qualifier


def _function(node: exp.Func) -> SqlVerdict | None:
    if not isinstance(node, exp.Anonymous) and type(node).__name__ in PURE_NODE_CLASSES:
        return None
    if isinstance(node, exp.AggFunc) and not type(node).__name__.startswith("AI"):
        return None
    name, qualifier = _function_name(node)
    verdict = function_verdict(name, qualifier)
    shown = f"{qualifier}.{name}" if qualifier else name
    if verdict == "delete":
        return SqlVerdict("delete", f"calls {shown}(), which has side effects")
    if verdict == "write":
        return SqlVerdict("write", f"calls {shown}(), which is not known to be read-only")
    return None


# --- nodes and statements ---------------------------------------------------------------
def _copy(node: exp.Copy) -> SqlVerdict:
    for target in node.args.get("files") or []:
        word = target.name.upper() if isinstance(target, exp.Expression) else ""
        if word == "PROGRAM":
            return SqlVerdict("delete", "COPY … PROGRAM runs a shell command on the server")
        if word not in _CLIENT_STREAMS:
            return SqlVerdict("delete", "COPY reads or writes a file on the server")
    return SqlVerdict("write", "COPY moves table data")


def _node(node: exp.Expr) -> SqlVerdict | None:
    if isinstance(node, _DELETE_NODES):
        return SqlVerdict("delete", f"{node.key.upper()} statement")
    if isinstance(node, exp.Copy):
        return _copy(node)
    if isinstance(node, _WRITE_NODES):
        return SqlVerdict("write", f"{node.key.upper()} statement")
    if isinstance(node, exp.Select):
        if node.args.get("into"):
            return SqlVerdict("write", "SELECT … INTO creates a table")
        if node.args.get("locks"):
            return SqlVerdict("write", "SELECT … FOR UPDATE/SHARE locks rows")
    if isinstance(node, exp.Func):
        return _function(node)
    return None


def _tree(stmt: exp.Expr, dialect: str | None, depth: int) -> SqlVerdict:
    verdicts: list[SqlVerdict] = []
    for node in stmt.walk(prune=lambda n: isinstance(n, exp.Hint)):
        if isinstance(node, exp.Command) and node is not stmt:
            verdicts.append(_command(node, dialect, depth))
        elif (verdict := _node(node)) is not None:
            verdicts.append(verdict)
        if verdicts and verdicts[-1].risk == "delete":
            break
    return _worst(verdicts)


def _describe(stmt: exp.Describe, dialect: str | None, depth: int) -> SqlVerdict:
    inner = stmt.this
    if str(stmt.args.get("style") or "").upper() in ("ANALYZE", "ANALYSE") and inner:
        verdict = _statement(inner, dialect, depth + 1)
        return SqlVerdict(verdict.risk, f"EXPLAIN ANALYZE runs the statement: {verdict.reason}")
    return SqlVerdict("read", "EXPLAIN without ANALYZE does not run the statement")


def _statement(stmt: exp.Expr, dialect: str | None, depth: int = 0) -> SqlVerdict:
    if depth > MAX_EXPLAIN_DEPTH:
        return SqlVerdict("delete", "EXPLAIN is nested too deeply to classify")
    if isinstance(stmt, exp.Command):
        return _command(stmt, dialect, depth)
    if isinstance(stmt, exp.Describe):
        return _describe(stmt, dialect, depth)
    verdict = _tree(stmt, dialect, depth)
    if verdict.risk == "read" and not isinstance(stmt, _READ_ROOTS):
        return SqlVerdict("delete", f"{stmt.key.upper()} is not a statement kind known to be safe")
    return verdict


# --- EXPLAIN (a sqlglot Command: its options are read from tokens, comments dropped) ------
def _option_list(tokens: list[Token]) -> tuple[bool, int]:
    """``(ANALYZE [bool], BUFFERS, FORMAT JSON …)`` → (analyze?, index after the list)."""
    depth, analyze, i = 0, False, 0
    option: list[str] = []
    for i, tok in enumerate(tokens):
        if tok.token_type == TokenType.L_PAREN:
            depth += 1
            continue
        if tok.token_type in (TokenType.R_PAREN, TokenType.COMMA) and depth == 1:
            if option and option[0] in ("ANALYZE", "ANALYSE"):
                analyze = analyze or not (len(option) > 1 and option[1] in _FALSE_WORDS)
            option = []
            if tok.token_type == TokenType.R_PAREN:
                return analyze, i + 1
            continue
        option.append(tok.text.upper())
    return True, len(tokens)  # an unclosed option list: assume the worst


def _explain(rest: str, dialect: str | None, depth: int) -> SqlVerdict:
    try:
        tokens = sqlglot.tokenize(rest, read=dialect)
    except TokenError:
        return UNPARSABLE
    if tokens and tokens[0].token_type == TokenType.L_PAREN:
        analyze, i = _option_list(tokens)
    else:
        analyze, i = False, 0
        while i < len(tokens) and tokens[i].text.upper() in _EXPLAIN_WORDS:
            analyze = analyze or tokens[i].text.upper() in ("ANALYZE", "ANALYSE")
            i += 1
    if i >= len(tokens):
        return SqlVerdict("read", "EXPLAIN with nothing to explain")
    if not analyze:
        return SqlVerdict("read", "EXPLAIN without ANALYZE does not run the statement")
    if depth >= MAX_EXPLAIN_DEPTH:
        return SqlVerdict("delete", "EXPLAIN is nested too deeply to classify")
    inner = _classify(rest[tokens[i].start :], (dialect,), depth + 1)
    return SqlVerdict(inner.risk, f"EXPLAIN ANALYZE runs the statement: {inner.reason}")


def _command(node: exp.Command, dialect: str | None, depth: int) -> SqlVerdict:
    name = str(node.this or "").strip().upper()
    rest = node.expression.name if isinstance(node.expression, exp.Expression) else ""
    if name in _READ_COMMANDS:
        return SqlVerdict("read", f"{name} statement")
    if name in _WRITE_COMMANDS:
        return SqlVerdict("write", f"{name} statement")
    if name == "EXPLAIN":
        return _explain(rest, dialect, depth)
    return SqlVerdict("delete", f"{name or 'this'} is not a statement kind known to be safe")


# --- text -----------------------------------------------------------------------------
def _executable_comment(tokens: list[Token]) -> SqlVerdict | None:
    for tok in tokens:
        for comment in tok.comments or []:
            if comment.startswith("!"):
                return SqlVerdict(
                    "delete", "MySQL runs the content of an executable comment /*! … */"
                )
    return None


def _in_dialect(sql: str, dialect: str | None, depth: int) -> SqlVerdict | None:
    """The verdict of one dialect's reading, or None when that dialect cannot parse it."""
    try:
        tokens = sqlglot.tokenize(sql, read=dialect)
        if (verdict := _executable_comment(tokens)) is not None:
            return verdict
        statements = [
            s
            for s in sqlglot.parse(sql, read=dialect)
            if s is not None and not isinstance(s, _IGNORED_ROOTS)
        ]
    except (ParseError, TokenError, RecursionError):
        return None
    if not statements:
        return EMPTY
    try:
        return _worst(_statement(s, dialect, depth) for s in statements)
    except RecursionError:  # e.g. thousands of nested EXPLAIN ANALYZE: fail safe
        return SqlVerdict("delete", "the SQL is nested too deeply to classify")


def _classify(sql: str | None, dialects: tuple[str | None, ...], depth: int) -> SqlVerdict:
    if not sql or not sql.strip():
        return EMPTY
    readings = [_in_dialect(sql, d, depth) for d in dialects]
    verdicts = [v for v in readings if v is not None]
    if not verdicts:
        return UNPARSABLE
    if all(v is EMPTY for v in verdicts):
        return EMPTY
    return _worst(v for v in verdicts if v is not EMPTY)


@lru_cache(maxsize=256)  # pure: one call's card, risk and guard share a single parse
def classify_sql(sql: str | None, *, dialect: str | None = None) -> SqlVerdict:
    """Risk and reason for a SQL text (see the module docstring). ``dialect`` reads it in
    that one dialect only; by default the worst of generic, PostgreSQL and MySQL."""
    return _classify(sql, (dialect,) if dialect else _DIALECTS, 0)


def sql_risk(sql: str | None, *, dialect: str | None = None) -> Risk:
    """Classify SQL text as read, write or delete (see :func:`classify_sql`)."""
    return classify_sql(sql, dialect=dialect).risk
