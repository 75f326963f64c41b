"""How many rows a bulk UPDATE or DELETE changed (SQLAlchemy types ``execute`` as a
plain ``Result``; for these statements it is a ``CursorResult`` with ``rowcount``)."""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy.engine import CursorResult, Result


def changed(result: Result[Any]) -> int:
    """The number of rows the statement behind ``result`` changed (0 when unknown)."""
    return int(cast(CursorResult[Any], result).rowcount or 0)
