"""The one redaction rule, shared by the audit log and the reasoning log: secret-looking
keys become ``"***"``, long strings are cut, and every text (keys and values) has NUL bytes
and lone surrogates replaced by U+FFFD (PostgreSQL could not store them). A leaf: it knows
no part of the product.
"""

from __future__ import annotations

import functools
import math
import uuid
from collections.abc import Mapping
from datetime import date, datetime
from enum import Enum
from pathlib import PurePath
from typing import Any

from pydantic import BaseModel

from app.text import clean_text

SECRET_KEY_PARTS = (
    "password",
    "passwd",
    "secret",
    "token",
    "api_key",
    "apikey",
    "authorization",
    "cookie",
    "credential",
    "private_key",
)
REDACTED = "***"
MAX_STRING = 2000
MAX_DEPTH = 12
_REMEMBERED_KEY = 64  # the longest key whose secret verdict is remembered


def is_secret_key(key: object) -> bool:
    """Whether a key names a secret. A short text key's answer is remembered (the same few
    keys come back in every row); a long or odd key is checked each time, so a flood of
    large keys cannot grow the memory."""
    if type(key) is str and len(key) <= _REMEMBERED_KEY:
        return _is_secret_text(key)
    return _names_secret(str(key))


@functools.lru_cache(maxsize=4096)
def _is_secret_text(key: str) -> bool:
    return _names_secret(key)


def _names_secret(key: str) -> bool:
    k = key.lower().replace("-", "_")
    return any(part in k for part in SECRET_KEY_PARTS)


def cut(text: str) -> str:
    """Storable text: NUL and lone surrogates replaced (PostgreSQL refuses both, and one
    bad value would fail the whole batch), then cut to ``MAX_STRING``."""
    text = clean_text(text)
    if len(text) <= MAX_STRING:
        return text
    return text[: MAX_STRING - 1] + "…"


def redact(value: Any, _depth: int = 0) -> Any:
    """A JSON-safe copy of ``value`` with secret keys masked and long strings cut."""
    if _depth > MAX_DEPTH:
        return "…"
    kind = type(value)  # the common exact types first: no ABC checks for them
    if kind is str:
        return cut(value)
    if value is None or kind is bool or kind is int:
        return value
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, Mapping):
        return {
            cut(str(k)): REDACTED if is_secret_key(k) else redact(v, _depth + 1)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple | set | frozenset):
        return [redact(v, _depth + 1) for v in value]
    if isinstance(value, str):
        return cut(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # NaN / Infinity are not JSON (PostgreSQL's JSONB refuses them)
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Enum):
        return redact(value.value, _depth + 1)
    if isinstance(value, uuid.UUID | PurePath):
        return str(value)
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    return cut(repr(value))
