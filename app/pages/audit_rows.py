"""The audit page's rows (blocking reads; the page runs them in a thread): the filters
(from the URL), one page of rows from the database, each row as the table shows it — its
arguments as name/value pairs to unfold, and a link to the conversation that made it —
and the CSV export.
"""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from app.i18n import t
from app.pages.shell import conversation_link
from app.store.audit_event import AuditEvent
from app.store.audit_log import count_audit, list_audit
from app.store.db import Database
from app.store.undo import undone_for_audit
from app.text import csv_cell

FILTERS = ("user", "tool", "decision", "env", "since", "until", "conv", "approval")
COLUMNS = (
    "ts", "user", "role", "kind", "tool", "env", "decision", "reason", "args", "duration_ms",
    "channel", "client", "conv_id",
)  # fmt: skip
PAGE_SIZE = 50  # rows a page of /audit shows (the database pages: a long log stays quick)
#: a value's text in the unfolded arguments (a longer one is cut, its end marked)
VALUE_LIMIT = 2000


class FilterError(ValueError):
    """A filter value the page cannot use (a malformed date)."""


def parse_day(value: str | None, *, end: bool = False) -> datetime | None:
    """'2026-01-31' (or a full ISO time) → datetime; ``end`` makes a bare day inclusive."""
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError as exc:
        raise FilterError(value) from exc
    if end and len(value.strip()) == 10:
        parsed += timedelta(days=1)
    return parsed


def _store_filters(filters: dict[str, str]) -> dict[str, Any]:
    return {
        "user": filters.get("user") or None,
        "tool": filters.get("tool") or None,
        "decision": filters.get("decision") or None,
        "env": filters.get("env") or None,
        "conv_id": filters.get("conv") or None,
        "approval": filters.get("approval") or None,  # a four-eyes request's whole story
        "since": parse_day(filters.get("since")),
        "until": parse_day(filters.get("until"), end=True),
    }


def arg_rows(args: Any) -> list[dict[str, str]]:
    """A row's arguments as the unfolded table's name/value pairs: a text or a number as
    written, anything nested as indented JSON (a list or a value of its own: one pair)."""
    if args is None:
        return []
    pairs = args.items() if isinstance(args, dict) else [("value", args)]
    rows = []
    for name, value in pairs:
        text = (
            value
            if isinstance(value, str)
            else json.dumps(value, ensure_ascii=False, indent=2, default=str)
        )
        if len(text) > VALUE_LIMIT:
            text = text[:VALUE_LIMIT] + " …"
        rows.append({"name": str(name), "value": text})
    return rows


def conversation_target(conv_id: str | None, row_user: str | None, viewer: str) -> str:
    """Where a row's conversation link goes: the viewer's own conversation opens in the
    chat; another person's (which the chat never shows to someone else) is its trail of
    audit rows."""
    if not conv_id:
        return ""
    if row_user == viewer:
        return conversation_link(conv_id)
    return "/audit?" + urlencode({"conv": conv_id})


def display_row(
    r: AuditEvent,
    viewer: str = "",
    undone: tuple[str, datetime] | None = None,
    lang: str = "en",
) -> dict[str, Any]:
    """One row as the table (and the CSV) shows it; an undone change's reason says "undone
    by …" (``undone``: who and when, from its undo's record: rows never change)."""
    return {
        "id": str(r.id),
        "ts": r.ts.isoformat(timespec="seconds"),
        "user": r.user or "",
        "role": r.role or "",
        "kind": r.kind,
        "tool": r.tool or "",
        "env": r.env or "",
        "decision": r.decision or "",
        "reason": _reason(r.reason, undone, lang),
        "args": json.dumps(r.args, ensure_ascii=False) if r.args is not None else "",
        "arg_rows": arg_rows(r.args),
        "duration_ms": "" if r.duration_ms is None else round(r.duration_ms, 1),
        "channel": r.channel or "",
        "client": r.client or "",
        "conv_id": r.conv_id or "",
        "conv_link": conversation_target(r.conv_id, r.user, viewer),
    }


def _reason(reason: str | None, undone: tuple[str, datetime] | None, lang: str) -> str:
    at = undone and t("audit_undone_by", lang, user=undone[0], at=f"{undone[1]:%Y-%m-%d %H:%M}")
    return " · ".join(filter(None, (reason, at)))


def fetch_page(
    db: Database,
    filters: dict[str, str],
    page: int,
    per_page: int = PAGE_SIZE,
    viewer: str = "",
    lang: str = "en",
) -> tuple[list[dict[str, Any]], int]:
    """Blocking: one page of the rows matching ``filters`` (newest first; ``page`` from 1)
    and how many rows match: the database pages, the page never loads the whole table."""
    where = _store_filters(filters)
    with db.session() as s:
        total = count_audit(s, **where)
    offset = (max(1, page) - 1) * per_page
    return fetch_rows(db, filters, per_page, offset=offset, viewer=viewer, lang=lang), total


def fetch_rows(
    db: Database,
    filters: dict[str, str],
    limit: int = 500,
    *,
    offset: int = 0,
    viewer: str = "",
    lang: str = "en",
) -> list[dict[str, Any]]:
    """Blocking: the audit rows matching ``filters`` as display dicts (newest first)."""
    where = _store_filters(filters)
    with db.session() as s:
        rows = list_audit(s, limit=limit, offset=offset, **where)
        undone = undone_for_audit(s, audit_ids=[str(r.id) for r in rows])
        return [display_row(r, viewer, undone.get(str(r.id)), lang) for r in rows]


def to_csv(rows: list[dict[str, Any]]) -> str:
    """The rows as CSV; a cell a spreadsheet would run as a formula (a username or reason
    starting with ``=``, ``+``, ``-``, ``@``, a tab or CR) is quoted by :func:`csv_cell`."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, extrasaction="ignore")
    writer.writeheader()
    writer.writerows({k: csv_cell(v) for k, v in row.items()} for row in rows)
    return out.getvalue()
