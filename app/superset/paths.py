"""Paths of Superset's REST API: an id never becomes a path (``../`` in an id must not
reach another endpoint).

Every id or slug that goes into a URL path passes :func:`segment` — an integer, or a
slug of letters, digits, ``_``, ``.`` and ``-`` not starting with a dot (so never ``.``
or ``..``), at most 255 characters — and is percent-quoted; :func:`api_path` fills a
template's ``{}`` with such segments. :func:`check_path` then checks the whole path of
every request in one place (``SupersetSession.request``): each segment is plain, none is
a dot segment, there is no query, fragment, percent sign or backslash. A value that
fails is an :class:`~app.errors.UnsafePathError` that names it; nothing is sent.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from app.errors import UnsafePathError

MAX_SEGMENT_CHARS = 255

_SLUG = re.compile(rf"(?!\.)[A-Za-z0-9_.-]{{1,{MAX_SEGMENT_CHARS}}}")
_PATH_SEGMENT = re.compile(r"[A-Za-z0-9_.~-]*")


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:79] + "…"


def segment(value: int | str) -> str:
    """One path segment from an id (an int, or digits) or a slug, percent-quoted."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise UnsafePathError(f"{_shown(value)} is not an id or a slug")
    text = str(value)
    if not _SLUG.fullmatch(text):
        raise UnsafePathError(
            f"{_shown(value)} cannot be used in a Superset URL: give a number or a slug "
            "(letters, digits, _ . -, not starting with a dot)"
        )
    return quote(text, safe="")


def api_path(template: str, *ids: int | str) -> str:
    """``template`` (e.g. ``/api/v1/dashboard/{}/charts``) with each ``{}`` filled by
    :func:`segment` of the next id."""
    return template.format(*(segment(i) for i in ids))


def check_path(path: str) -> str:
    """``path`` when every segment of it is plain (the last check before a request)."""
    if not path.startswith("/") or any(c in path for c in "?#%\\"):
        raise UnsafePathError(f"unsafe Superset path {_shown(path)}")
    for part in path.split("/")[1:]:
        if part in (".", "..") or not _PATH_SEGMENT.fullmatch(part):
            raise UnsafePathError(f"unsafe Superset path {_shown(path)}")
    return path
