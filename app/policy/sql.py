"""Risk of a SQL text, from sqlglot's tokens and parse tree, never from regexes on the text.

* read: SELECT / UNION / INTERSECT / EXCEPT / VALUES / WITH … SELECT, EXPLAIN
  (without ANALYZE), SHOW, DESCRIBE, USE — calling only pure functions;
* write: INSERT, UPDATE, MERGE, CREATE (incl. OR REPLACE, CTAS), REPLACE, COPY to/from
  the client, SELECT … INTO, SELECT … FOR UPDATE, SET, COMMENT, ANALYZE; a function
  that is on neither list of :mod:`app.policy.sql_functions` (it may write);
* delete (dangerous): DELETE, DROP, TRUNCATE, ALTER, GRANT/REVOKE, KILL, COPY … PROGRAM
  or a server file, a known side-effect function (``pg_terminate_backend``,
  ``dblink_exec``, ``set_config``, ``nextval``, ``pg_sleep`` …), an executable comment —
  MySQL's ``/*! … */`` and MariaDB's ``/*M! … */`` in every form (the server runs their
  content) — text that does not parse or is too long to classify, and templated text
  (Superset may render it into other SQL first: :mod:`app.policy.sql_templates`).

``EXPLAIN`` is read from the parsed tokens, comments removed (``EXPLAIN /* x */ ANALYZE``
is ANALYZE); ``EXPLAIN ANALYZE <stmt>`` runs ``<stmt>``, so it takes that statement's
risk. Several statements → the worst. Every node of the tree counts (a data-modifying
CTE is delete).

**Readings**: quote, bracket and comment rules differ between engines, so the text is
read in every candidate dialect of :mod:`app.policy.sql_dialects` and, when the
database's backend is known, in its own dialect too; the worst reading wins. A reading
that fails to tokenize or parse is dangerous (the database may read the text that way),
and so is one over ``MAX_CLASSIFIED_TOKENS`` tokens, unparsed (the cost stays bounded;
callers on an event loop run this in a worker thread: ``app.cpu``).

:func:`classify_sql` gives a :class:`SqlVerdict` (the risk and why); :func:`sql_risk` the risk.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from app.policy.sql_dialects import MAX_CLASSIFIED_TOKENS, dialect_name, dialects_for
from app.policy.sql_functions import function_risk
from app.policy.sql_templates import TEMPLATED_KEY, TEMPLATED_REASON, is_templated

Risk = Literal["read", "write", "delete"]
RISK_ORDER: dict[str, int] = {"read": 0, "write": 1, "delete": 2}


@dataclass(frozen=True)
class SqlVerdict:
    """The risk of a SQL text and the reason for it (shown on the confirmation card);
    ``key`` names the reason's sentence in the catalog (en + ru) when it has one."""

    risk: Risk
    reason: str
    key: str | None = None


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
TOO_LONG = SqlVerdict(
    "delete",
    f"the SQL is too long to classify (over {MAX_CLASSIFIED_TOKENS} tokens): "
    "a person must confirm it",
)
# MySQL's /*! … */ and /*!50000 … */, MariaDB's /*M! … */ and /*M!100000 … */
_EXECUTABLE = re.compile(r"\A\s*+[mM]?!")
READ = SqlVerdict("read", "read-only query")
TEMPLATED = SqlVerdict("delete", TEMPLATED_REASON, TEMPLATED_KEY)


def worst(*risks: Risk) -> Risk:
    """The most severe of the given risks (read < write < delete)."""
    return max(risks, key=RISK_ORDER.__getitem__)


def _worst(verdicts: Iterable[SqlVerdict]) -> SqlVerdict:
    best: SqlVerdict | None = None
    for verdict in verdicts:  # the first verdict reaching the worst level keeps its reason
        if best is None or RISK_ORDER[verdict.risk] > RISK_ORDER[best.risk]:
            best = verdict
    return best or READ


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
    if isinstance(node, exp.Func) and (found := function_risk(node)) is not None:
        return SqlVerdict(*found)  # type: ignore[arg-type]  # function_risk's risks
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
            if _EXECUTABLE.match(comment):
                return SqlVerdict(
                    "delete",
                    "MySQL and MariaDB run the content of an executable comment "
                    "(/*! … */, /*M! … */)",
                )
    return None


def _reading(sql: str, dialect: str | None, depth: int) -> SqlVerdict:
    """One dialect's reading of the text. Text this dialect cannot tokenize or parse is
    dangerous (it may be how the database reads it), and so is text over the budget."""
    try:
        reader = Dialect.get_or_raise(dialect)
        tokens = reader.tokenize(sql)
        if len(tokens) > MAX_CLASSIFIED_TOKENS:
            return TOO_LONG
        if (verdict := _executable_comment(tokens)) is not None:
            return verdict
        parsed = reader.parser().parse(tokens, sql)
        statements = [s for s in parsed if s is not None and not isinstance(s, _IGNORED_ROOTS)]
    except (ParseError, TokenError, RecursionError):
        return SqlVerdict("delete", f"the SQL could not be parsed as {dialect_name(dialect)}")
    if not statements:
        return EMPTY
    try:
        return _worst(_statement(s, dialect, depth) for s in statements)
    except RecursionError:  # e.g. thousands of nested EXPLAIN ANALYZE: fail safe
        return SqlVerdict("delete", "the SQL is nested too deeply to classify")


def _classify(sql: str | None, dialects: tuple[str | None, ...], depth: int) -> SqlVerdict:
    if not sql or not sql.strip():
        return EMPTY
    if is_templated(sql):  # what Superset runs is the rendered text, not this one
        return TEMPLATED
    readings: list[SqlVerdict] = []
    for dialect in dialects:
        verdict = _reading(sql, dialect, depth)
        seen = [RISK_ORDER[v.risk] for v in readings if v is not EMPTY]
        name = dialect_name(dialect)
        if seen and RISK_ORDER[verdict.risk] > max(seen) and name not in verdict.reason:
            # this engine reads more into the text than the earlier readings did: say so
            verdict = SqlVerdict(verdict.risk, f"{verdict.reason} (as {name} reads the text)")
        if verdict.risk == "delete" and verdict is not EMPTY:
            return verdict  # nothing is worse: the other readings cannot change it
        readings.append(verdict)
    if all(v is EMPTY for v in readings):
        return EMPTY
    return _worst(v for v in readings if v is not EMPTY)


@lru_cache(maxsize=256)  # pure: one call's card, risk and guard share a single parse
def _classified(sql: str | None, dialects: tuple[str | None, ...]) -> SqlVerdict:
    return _classify(sql, dialects, 0)


def classify_sql(
    sql: str | None, *, dialect: str | None = None, backend: str | None = None
) -> SqlVerdict:
    """Risk and reason for a SQL text (see the module docstring): the worst of its
    readings in every candidate dialect and, when ``backend`` (Superset's database
    backend, e.g. ``postgresql``) is given, in that database's own dialect too.
    ``dialect`` reads it in that one sqlglot dialect only (tests, EXPLAIN's inner text)."""
    return _classified(sql, (dialect,) if dialect else dialects_for(backend))


def sql_risk(sql: str | None, *, dialect: str | None = None, backend: str | None = None) -> Risk:
    """Classify SQL text as read, write or delete (see :func:`classify_sql`)."""
    return classify_sql(sql, dialect=dialect, backend=backend).risk
