"""The small row helpers of the store modules: :func:`saved` (add and flush one row),
:func:`new_row` (make, add and flush one), :func:`changed` (how many rows a bulk UPDATE
or DELETE changed), :func:`where_equal` (a filter a column each) and :func:`moment_of`
(the time a call acts at)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, Protocol, Self, TypeVar, cast

from sqlalchemy.engine import CursorResult, Result
from sqlmodel import Session, col

from app.store.columns import as_utc, utcnow

Row = TypeVar("Row")


class Filterable(Protocol):
    """A statement that takes WHERE clauses (a select, an update, a delete)."""

    def where(self, *clauses: Any) -> Self: ...


Stmt = TypeVar("Stmt", bound=Filterable)


def saved(session: Session, row: Row) -> Row:
    """``row`` added to ``session`` and flushed (defaults and ids filled; the caller
    commits)."""
    session.add(row)
    session.flush()
    return row


def new_row(session: Session, model: type[Row], row_id: str | None = None, **fields: Any) -> Row:
    """A new ``model`` row of ``fields``, saved; its id ``row_id`` when given, else the
    model's own default."""
    if row_id:
        fields["id"] = row_id
    return saved(session, model(**fields))


def changed(result: Result[Any]) -> int:
    """The number of rows the statement behind ``result`` changed (0 when unknown).
    SQLAlchemy types ``execute`` as a plain ``Result``; for a bulk UPDATE or DELETE it is
    a ``CursorResult`` with ``rowcount``."""
    return int(cast(CursorResult[Any], result).rowcount or 0)


def where_equal(
    stmt: Stmt, columns: Mapping[str, Any], values: Mapping[str, Any], *, others: Iterable[str] = ()
) -> Stmt:
    """``stmt`` narrowed to the rows whose column equals each value given (a value None,
    or missing, means "any"); ``columns`` maps a filter's name to its column. A name in
    ``values`` that is neither a column's nor one of ``others`` is a TypeError."""
    unknown = values.keys() - columns.keys() - set(others)
    if unknown:
        raise TypeError(f"unknown filter(s): {sorted(unknown)}")
    for name, column in columns.items():
        value = values.get(name)
        if value is not None:
            stmt = stmt.where(col(column) == value)
    return stmt


def moment_of(now: datetime | None) -> datetime:
    """The time a call acts at: ``now`` in UTC when given (tests pin it), else the clock."""
    return as_utc(now) if now else utcnow()
