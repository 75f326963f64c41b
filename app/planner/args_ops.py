"""Argument extraction for the operations tools: backups, restore, maintenance, tasks.

Part of the :data:`app.planner.args.EXTRACTORS` table.
"""

from __future__ import annotations

import re
from typing import Any

from app.planner.request import Request


def list_backups_args(req: Request) -> dict[str, Any]:
    refs, from_ctx = req.dashboards(required=False)
    return {
        "env_id": req.env_id(object_from_context=from_ctx),
        "dashboard_id": refs[0] if refs else None,
    }


def run_backup_args(req: Request) -> dict[str, Any]:
    refs, from_ctx = req.dashboards(required=False)
    return {"env_id": req.env_id(object_from_context=from_ctx), "dashboard_ids": refs or None}


_BACKUP_ID = re.compile(
    r"(?:back[\s-]?up|snapshot|бэкап\w*|бекап\w*|копи\w*)\s*(?:id\s*)?[#№:]?\s*"
    r"(?=[\w:.-]*\d|[0-9a-f]{4,}\b)([A-Za-z0-9][\w:.-]*)",
    re.IGNORECASE,
)


def restore_backup_args(req: Request) -> dict[str, Any]:
    """The backup id as typed: a full id, or a short one ("3", "abf0…") that the planner
    looks up in the backup list before restoring."""
    m = _BACKUP_ID.search(req.scan)
    backup_id = m.group(1).rstrip(".:") if m else None
    if backup_id is None:
        ids = re.findall(r"(?<![\w.-])(?=[\w.:-]*\d)[A-Za-z0-9][\w.:-]{2,}", req.scan)
        backup_id = ids[0] if ids else (req.quoted[0] if req.quoted else None)
    return {"backup_id": backup_id, "env_id": req.mentioned_env()}


def duration_minutes(text: str) -> int | None:
    if m := re.search(r"(\d+)\s*(?:minutes?|mins?|m\b|минут\w*|мин\b)", text, re.I):
        return int(m.group(1))
    if m := re.search(r"(\d+(?:[.,]5)?)\s*(?:hours?|hrs?|h\b|час\w*)", text, re.I):
        return int(float(m.group(1).replace(",", ".")) * 60)
    if re.search(r"half\s+an\s+hour|полчаса", text, re.I):
        return 30
    if re.search(r"\ban\s+hour\b|\bone\s+hour\b|на\s+час\b|\bчас\b", text, re.I):
        return 60
    return None


# "for <purpose>" / "для <purpose>", where the words after "for" are not a duration
_PURPOSE = re.compile(
    r"\b(?:for|для)\s+(?!\d|an?\s+hour|one\s+hour|half\s+an|the\s+next\b|(?:a|one)\s+day\b)"
    r"(?![^,.;]*\b(?:min(?:ute)?s?|hours?|days?|минут\w*|час\w*|дн\w*)\b)(.+)$",
    re.IGNORECASE,
)


def start_maintenance_args(req: Request) -> dict[str, Any]:
    reason = req.quoted[0] if req.quoted else None
    m = re.search(
        r"(?:because(?:\s+of)?|reason\s*[:=]?|due\s+to|причина\s*[:=]?|потому\s+что|из-за"
        r"|по\s+причине)\s*(.+)$",
        req.prefix,
        re.IGNORECASE,
    )
    if reason is None:  # "because …", else "… on dev for a release": what it is for
        found = m or _PURPOSE.search(req.prefix)
        reason = found.group(1).strip(" .") if found else None
    return {
        "env_id": req.env_id(),
        "reason": reason,
        "duration_minutes": duration_minutes(req.scan),
    }


def task_status_args(req: Request) -> dict[str, Any]:
    m = re.search(
        r"(?:tasks?|jobs?|задач\w*|таск\w*)\s*(?:id\s*)?[#№:]?\s*([\w-]*\d[\w-]*)",
        req.scan,
        re.IGNORECASE,
    )
    return {"task_id": m.group(1) if m else (req.quoted[0] if req.quoted else None)}
