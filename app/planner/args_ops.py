"""Argument extraction for the operations tools: backups, restore, maintenance, tasks.

Part of the :data:`app.planner.args.EXTRACTORS` table.
"""

from __future__ import annotations

import re
from typing import Any

from app.planner.request import Request
from app.planner.tails import tail_pattern, tail_search, tail_start, tail_value


def list_backups_args(req: Request) -> dict[str, Any]:
    refs, from_ctx = req.dashboards(required=False)
    return {
        "env_id": req.env_id(object_from_context=from_ctx),
        "dashboard_id": refs[0] if refs else None,
    }


def run_backup_args(req: Request) -> dict[str, Any]:
    refs, from_ctx = req.dashboards(required=False)
    return {"env_id": req.env_id(object_from_context=from_ctx), "dashboard_ids": refs or None}


# The id after "backup": with a digit within its first 64 characters, or four or more
# hex digits (an id has 32). Blanks are taken whole, and a Russian ending is letters only
# and at most 30 of them (its digits would be the id), so one attempt reads one id.
_ID_AHEAD = r"(?=[\w:.-]{0,64}\d|[0-9a-f]{4,64}\b)"
_BACKUP_ID = re.compile(
    r"(?:back[\s-]?up|snapshot|бэкап[^\W\d]{0,30}+|бекап[^\W\d]{0,30}+|копи[^\W\d]{0,30}+)"
    r"\s*+(?:id\s*+)?[#№:]?\s*+" + _ID_AHEAD + r"([A-Za-z0-9][\w:.-]*+)",
    re.IGNORECASE,
)
_SHORT_ID = re.compile(r"(?<![\w.-])(?=[\w.:-]{0,64}\d)[A-Za-z0-9][\w.:-]{2,}+")


def restore_backup_args(req: Request) -> dict[str, Any]:
    """The backup id as typed: a full id, or a short one ("3", "abf0…") that the planner
    looks up in the backup list before restoring."""
    m = _BACKUP_ID.search(req.scan)
    backup_id = m.group(1).rstrip(".:") if m else None
    if backup_id is None:
        ids = _SHORT_ID.findall(req.scan)
        backup_id = ids[0] if ids else (req.quoted[0] if req.quoted else None)
    return {"backup_id": backup_id, "env_id": req.mentioned_env()}


# a number starts at the first digit of its run (a search would otherwise try each digit)
_MINUTES = re.compile(r"(?<!\d)(\d++)\s*+(?:minutes?|mins?|m\b|минут\w*|мин\b)", re.I)
_HOURS = re.compile(r"(?<!\d)(\d++(?:[.,]5)?)\s*+(?:hours?|hrs?|h\b|час\w*)", re.I)
_HALF_HOUR = re.compile(r"half\s+an\s+hour|полчаса", re.I)
_AN_HOUR = re.compile(r"\ban\s+hour\b|\bone\s+hour\b|на\s+час\b|\bчас\b", re.I)


def duration_minutes(text: str) -> int | None:
    if m := _MINUTES.search(text):
        return int(m.group(1))
    if m := _HOURS.search(text):
        return int(float(m.group(1).replace(",", ".")) * 60)
    if _HALF_HOUR.search(text):
        return 30
    if _AN_HOUR.search(text):
        return 60
    return None


# "for <purpose>" / "для <purpose>" to the end of the request, where the words after "for"
# are no duration: not "for 2 hours", "for an hour", "for the next …", nor a clause (up
# to , . ;) that names minutes, hours or days
_FOR = re.compile(r"\b(?:for|для)(\s+)", re.IGNORECASE)
_NOT_A_PURPOSE = re.compile(
    r"\d|an?\s+hour|one\s+hour|half\s+an|the\s+next\b|(?:a|one)\s+day\b", re.IGNORECASE
)
_DURATION_WORD = re.compile(r"\b(?:min(?:ute)?s?|hours?|days?|минут\w*|час\w*|дн\w*)\b", re.I)
_CLAUSE_END = re.compile(r"[,.;]")
_REST = re.compile(r"(.+)$")
_FOR_CHARS = 3  # "for", "для"


class _Ahead:
    """The next match of a pattern at or after a position that only moves forward."""

    def __init__(self, pattern: re.Pattern[str], text: str, start: int) -> None:
        self._matches = pattern.finditer(text, start)
        self._next = next(self._matches, None)

    def start(self, position: int) -> int:
        while self._next is not None and self._next.start() < position:
            self._next = next(self._matches, None)
        return self._next.start() if self._next is not None else -1


def purpose(text: str) -> str | None:
    """What the maintenance is for ("… on dev for a release"), read as the rest of the
    request after the first "for" that does not give a duration (one pass: the clause's
    end and the next duration word are read ahead once, not again for each "for")."""
    start = tail_start(text, _FOR_CHARS)
    durations = _Ahead(_DURATION_WORD, text, start)
    clause_ends = _Ahead(_CLAUSE_END, text, start)
    for m in _FOR.finditer(text, start):
        at = m.end()
        if _NOT_A_PURPOSE.match(text, at):
            if len(m.group(1)) < 2:
                continue
            at -= 1  # a search gives one blank back, and the purpose starts with it
        duration, clause_end = durations.start(at), clause_ends.start(at)
        if duration >= 0 and (clause_end < 0 or duration < clause_end):
            continue
        back = at  # past the end, "\s+" gives back a blank: the last one before the end
        while back > m.start(1) + 1 and (back == len(text) or text[back] == "\n"):
            back -= 1
        if (rest := _REST.match(text, at)) or (rest := _REST.match(text, back)):
            return rest.group(1)
    return None


_BECAUSE = tail_pattern(
    r"because(?:\s+of)?|reason(?:\s*+[:=])?|due\s+to|причина(?:\s*+[:=])?|потому\s+что|из-за"
    r"|по\s+причине",
    re.IGNORECASE,
)
# "task <id>": the id is the rest of its run of [\w-] and has a digit within 64 characters
_TASK_ID = re.compile(
    r"(?:tasks?|jobs?|задач[^\W\d]{0,30}+|таск[^\W\d]{0,30}+)\s*+(?:id\s*+)?[#№:]?\s*+"
    r"(?=[\w-]{0,64}\d)([\w-]++)",
    re.IGNORECASE,
)


def start_maintenance_args(req: Request) -> dict[str, Any]:
    reason = req.quoted[0] if req.quoted else None
    if reason is None:  # "because …", else "… on dev for a release": what it is for
        m = tail_search(_BECAUSE, req.prefix)
        found = tail_value(m) if m else purpose(req.prefix)
        reason = found.strip(" .") if found is not None else None
    return {
        "env_id": req.env_id(),
        "reason": reason,
        "duration_minutes": duration_minutes(req.scan),
    }


def task_status_args(req: Request) -> dict[str, Any]:
    m = _TASK_ID.search(req.scan)
    return {"task_id": m.group(1) if m else (req.quoted[0] if req.quoted else None)}
