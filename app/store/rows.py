"""Small row helpers of the store modules: :func:`saved` (add and flush one row) and
:func:`changed` (how many rows a bulk UPDATE or DELETE changed)."""

from __future__ import annotations

from typing import Any, TypeVar, cast

from sqlalchemy.engine import CursorResult, Result
from sqlmodel import Session

Row = TypeVar("Row")


def saved(session: Session, row: Row) -> Row:
    """``row`` added to ``session`` and flushed (defaults and ids filled; the caller
    commits)."""
    session.add(row)
    session.flush()
    return row


def changed(result: Result[Any]) -> int:
    """The number of rows the statement behind ``result`` changed (0 when unknown).
    SQLAlchemy types ``execute`` as a plain ``Result``; for a bulk UPDATE or DELETE it is
    a ``CursorResult`` with ``rowcount``."""
    return int(cast(CursorResult[Any], result).rowcount or 0)
