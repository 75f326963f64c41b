"""Which found object a name means: a dashboard by its title or slug, a backup by the
first characters of its id (or its place in the list).

A lookup's result (a dashboard search, a backup list) is read into a
:class:`Resolution`: one match fills the intended call's argument; several are asked
about (at most :data:`MAX_CHOICES` listed); none is said plainly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.planner.results import Result

MAX_CHOICES = 5


@dataclass(frozen=True)
class Resolution:
    """What a lookup's result says of the name it looked up."""

    match: dict[str, Any] | None = None
    candidates: list[dict[str, Any]] = field(default_factory=list)
    total: int = 0  # how many the lookup found (may exceed the candidates shown)
    by_position: bool = False  # the candidate is the n-th of the list, not an id match


def dashboards_of(result: Result) -> tuple[list[dict[str, Any]], int]:
    """The dashboards of a search result ({id, title, slug}) and how many matched."""
    key = next((k for k in ("dashboards", "result") if result.items(k)), "")
    found = [
        {
            "id": d.get("id"),
            "title": d.get("title") or d.get("dashboard_title") or "",
            "slug": d.get("slug") or "",
        }
        for d in result.items(key)
        if isinstance(d, dict) and d.get("id") is not None
    ]
    count = result.get("count")
    total = count if isinstance(count, int) else result.total(key)
    return found, max(total, len(found))


def _norm(value: Any) -> str:
    return " ".join(str(value or "").split()).casefold()


def dashboard_named(ref: str, result: Result) -> Resolution:
    """One match, or exactly one exact title/slug match, is the dashboard."""
    found, total = dashboards_of(result)
    exact = [d for d in found if _norm(ref) in (_norm(d["title"]), _norm(d["slug"]))]
    if len(exact) == 1:
        return Resolution(exact[0], exact, total)
    if len(found) == 1 and total == 1:
        return Resolution(found[0], found, total)
    candidates = exact if len(exact) > 1 else found
    return Resolution(None, candidates[:MAX_CHOICES], len(exact) if len(exact) > 1 else total)


def backup_named(ref: str, result: Result) -> Resolution:
    """The one backup whose id starts with ``ref``; else the ``ref``-th of the list when
    ``ref`` is a number (asked about, not taken)."""
    backups = [b for b in result.items("backups") or result.items() if isinstance(b, dict)]
    prefix = ref.rstrip("….").casefold()
    hits = [b for b in backups if str(b.get("backup_id", "")).casefold().startswith(prefix)]
    if len(hits) == 1:
        return Resolution(hits[0], hits, 1)
    if hits:
        return Resolution(None, hits[:MAX_CHOICES], len(hits))
    if prefix.isdigit() and 1 <= int(prefix) <= len(backups):
        return Resolution(None, [backups[int(prefix) - 1]], 0, by_position=True)
    return Resolution(None, [], 0)
