"""Links into one environment's Superset, built from its configured base URL and an
object's numeric id — never from a URL found in Superset data — and scrubbing of
internal file paths out of anything a view shows."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_ABSOLUTE_PATH = re.compile(r"(?<![\w:/])(?:/[\w.@-]+){2,}/?|[A-Za-z]:\\[\w\\. -]+")
_HIDDEN_KEYS = re.compile(r"^(?:path|.*_path|file|filename|repository)$")


def _int_id(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True)
class Links:
    """URLs of Superset objects in the environment at ``base`` (None: no links)."""

    base: str | None = None

    def _url(self, path: str, object_id: Any) -> str | None:
        number = _int_id(object_id)
        if not self.base or number is None or not self.base.startswith(("http://", "https://")):
            return None
        return self.base.rstrip("/") + path.format(id=number)

    def dashboard(self, object_id: Any) -> str | None:
        return self._url("/superset/dashboard/{id}/", object_id)

    def chart(self, object_id: Any) -> str | None:
        return self._url("/explore/?slice_id={id}", object_id)

    def dataset(self, object_id: Any) -> str | None:
        return self._url("/explore/?datasource_type=table&datasource_id={id}", object_id)

    def database(self, object_id: Any) -> str | None:
        return self._url("/sqllab/?dbid={id}", object_id)


def hidden_key(key: str) -> bool:
    """Keys whose values are internal file paths (a backup's ``path`` ...)."""
    return bool(_HIDDEN_KEYS.match(key))


def without_paths(text: str) -> str:
    """``text`` with every absolute file path replaced by an ellipsis."""
    return _ABSOLUTE_PATH.sub("…", text)
