"""A Core statement as the driver's own SQL (:class:`DriverStatement`).

SQLAlchemy's ``Connection.execute`` costs several times the write itself for a small
statement (cache lookup, parameter processing, result set-up); the statements that run on
every turn (the audit INSERT, the conversation list's upsert in
``app.store.conversations``) are compiled once per dialect instead, and their values go to
the driver positionally, each through its bind parameter's own processor (the exact stored
formats of the column types: a UUID's hex, SQLite's datetime text, JSON). The statement
stays written once, in Core; this only skips the machinery around it. Positional
paramstyles only (SQLite's qmark): PostgreSQL keeps Core, whose driver adapters (psycopg's
JSONB) need the statement's bind casts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Dialect
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler

Processor = Callable[[Any], Any]


@dataclass(frozen=True)
class _Compiled:
    sql: str
    names: tuple[str, ...]  # the value each position takes
    processors: tuple[Processor | None, ...]
    fixed: Mapping[str, Any]  # the statement's own values (its literals)

    def params(self, values: Mapping[str, Any]) -> tuple[Any, ...]:
        out = []
        for name, process in zip(self.names, self.processors, strict=True):
            value = values[name] if name in values else self.fixed[name]
            out.append(value if process is None else process(value))
        return tuple(out)


class DriverStatement:
    """``stmt`` compiled once per dialect; ``given``: the names of the values each run
    passes (every other bind parameter is one of the statement's own literals)."""

    def __init__(self, stmt: ClauseElement, given: Iterable[str]) -> None:
        self._stmt = stmt
        self._given = frozenset(given)
        self._by_dialect: dict[type[Dialect], _Compiled] = {}

    def execute(
        self, conn: Connection, values: Mapping[str, Any] | Sequence[Mapping[str, Any]]
    ) -> Any:
        """Run it on ``conn``'s driver connection, in ``conn``'s transaction (the caller
        commits), with one set of ``values`` (a mapping: the first row it returns, e.g.
        by RETURNING, or None) or many (a sequence: executemany; None)."""
        compiled = self._compiled(conn.dialect)
        cursor = conn.connection.cursor()
        try:
            if isinstance(values, Mapping):
                cursor.execute(compiled.sql, compiled.params(values))
                return cursor.fetchone()
            cursor.executemany(compiled.sql, [compiled.params(v) for v in values])
            return None
        finally:
            cursor.close()

    def _compiled(self, dialect: Dialect) -> _Compiled:
        found = self._by_dialect.get(type(dialect))
        if found is None:
            c = self._stmt.compile(dialect=dialect)
            if not isinstance(c, SQLCompiler) or not c.positiontup:
                raise ValueError(f"{dialect.name}: not a positional paramstyle")
            names = tuple(c.positiontup)
            binds = {name: c.binds[name] for name in names}
            found = _Compiled(
                sql=c.string,
                names=names,
                processors=tuple(
                    binds[n].type.dialect_impl(dialect).bind_processor(dialect) for n in names
                ),
                fixed={n: b.value for n, b in binds.items() if n not in self._given},
            )
            self._by_dialect[type(dialect)] = found
        return found
