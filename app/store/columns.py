"""The column types and the clock every table uses: timezone-aware UTC timestamps
(:class:`UTCDateTime`, :func:`utcnow`, :func:`as_utc`), JSON that is JSONB on PostgreSQL
(:data:`JsonType`), and the default keys of the tables that are not UUIDs."""

from __future__ import annotations

import secrets
import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime, TypeDecorator
from sqlalchemy.dialects.postgresql import JSONB

JsonType = JSON().with_variant(JSONB(), "postgresql")


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """Naive datetimes are taken as UTC; aware ones are converted to UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """``DateTime(timezone=True)`` that always returns aware UTC values.

    SQLite stores no zone, so values are written as naive UTC there and read back as UTC;
    comparisons in SQL stay consistent on both databases."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        value = as_utc(value)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        return None if value is None else as_utc(value)


def uuid_hex() -> str:
    """A new row's key where the key is a string (tasks, backups, run signals)."""
    return uuid.uuid4().hex


def confirmation_id() -> str:
    """A confirmation's key: unguessable, since a door names it in its answer."""
    return secrets.token_urlsafe(24)
