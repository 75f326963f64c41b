"""/audit (admins only): the audit rows with filters and a CSV export, in the app's
shell (its header); the database pages the rows (the table holds millions), the filters
and the page number are the URL's query, and each row's arguments are folded.

Analysts get a plain 403 page ("Admins only"). The export is ``GET /api/audit.csv`` with the
same filters as query parameters; it accepts the page session or an admin Bearer token.
"""

from __future__ import annotations

import csv
import html
import io
import json
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from nicegui import app, run, ui
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from app.auth import AuthGate, bearer_token
from app.errors import AuthError, error_shape
from app.i18n import pick_language, t
from app.pages import session
from app.pages.approvals_count import approvals_counter, keep_counting
from app.parts import installed
from app.store.audit import DECISIONS, count_audit, list_audit
from app.store.db import Database
from app.text import csv_cell
from components.header import shell_header

FILTERS = ("user", "tool", "decision", "env", "since", "until", "approval")
COLUMNS = (
    "ts", "user", "role", "kind", "tool", "env", "decision", "reason", "args", "duration_ms",
    "channel", "client", "conv_id",
)  # fmt: skip
CSV_PATH = "/api/audit.csv"
PAGE_SIZE = 50  # rows a page of /audit shows (the database pages, issue 25)
#: the args cell: folded, its first characters as the summary, the whole JSON unfolded
# (Vue's {{ }} escapes the text: a row's JSON is never markup)
ARGS_CELL = (
    '<q-td :props="props">'
    '<details v-if="props.value"><summary class="cursor-pointer font-mono text-xs">'
    "{{ props.value.length > 40 ? props.value.slice(0, 40) + '…' : props.value }}"
    "</summary>"
    '<pre class="whitespace-pre-wrap text-xs">{{ props.value }}</pre></details>'
    "</q-td>"
)


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
        "approval": filters.get("approval") or None,  # a four-eyes request's whole story
        "since": parse_day(filters.get("since")),
        "until": parse_day(filters.get("until"), end=True),
    }


def fetch_page(
    db: Database, filters: dict[str, str], page: int, per_page: int = PAGE_SIZE
) -> tuple[list[dict[str, Any]], int]:
    """Blocking: one page of the rows matching ``filters`` (newest first; ``page`` from 1)
    and how many rows match: the database pages, the page never loads the whole table."""
    where = _store_filters(filters)
    with db.session() as s:
        total = count_audit(s, **where)
    offset = (max(1, page) - 1) * per_page
    return fetch_rows(db, filters, per_page, offset=offset), total


def fetch_rows(
    db: Database, filters: dict[str, str], limit: int = 500, *, offset: int = 0
) -> list[dict[str, Any]]:
    """Blocking: the audit rows matching ``filters`` as display dicts (newest first)."""
    where = _store_filters(filters)
    with db.session() as s:
        rows = list_audit(s, limit=limit, offset=offset, **where)
        return [
            {
                "id": str(r.id),
                "ts": r.ts.isoformat(timespec="seconds"),
                "user": r.user or "",
                "role": r.role or "",
                "kind": r.kind,
                "tool": r.tool or "",
                "env": r.env or "",
                "decision": r.decision or "",
                "reason": r.reason or "",
                "args": json.dumps(r.args, ensure_ascii=False) if r.args is not None else "",
                "duration_ms": "" if r.duration_ms is None else round(r.duration_ms, 1),
                "channel": r.channel or "",
                "client": r.client or "",
                "conv_id": r.conv_id or "",
            }
            for r in rows
        ]


def to_csv(rows: list[dict[str, Any]]) -> str:
    """The rows as CSV; a cell a spreadsheet would run as a formula (a username or reason
    starting with ``=``, ``+``, ``-``, ``@``, a tab or CR) is quoted by :func:`csv_cell`."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, extrasaction="ignore")
    writer.writeheader()
    writer.writerows({k: csv_cell(v) for k, v in row.items()} for row in rows)
    return out.getvalue()


def forbidden_page(lang: str) -> HTMLResponse:
    title, hint, back = (t(k, lang) for k in ("admins_only", "admins_only_hint", "back_to_agent"))
    body = (
        f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'>"
        f"<title>403 · {html.escape(title)}</title></head>"
        "<body style='font-family:sans-serif;background:#f1f5f9;display:flex;"
        "justify-content:center;padding-top:15vh'><main role='alert'>"
        f"<h1>403 — {html.escape(title)}</h1><p>{html.escape(hint)}</p>"
        f"<p><a href='/agent'>{html.escape(back)}</a></p></main></body></html>"
    )
    return HTMLResponse(body, status_code=403)


def _admin_from_request(auth: AuthGate, request: Request) -> str | None:
    """Blocking: the admin's username from a Bearer token or the page session, else None
    (a token or session of a disabled, deleted or re-roled user counts as none)."""
    token = bearer_token(request)
    if token is not None:
        try:
            principal = auth.verify(token)
        except AuthError:
            return None
        return principal.user_id if principal.role == "admin" else None
    user = session.user_for(auth, session.browser_id(request))
    return user.username if user is not None and user.is_admin else None


async def audit_csv(request: Request) -> Response:
    auth = installed(request.app).auth
    if await run.io_bound(_admin_from_request, auth, request) is None:
        return JSONResponse(error_shape("forbidden", "admins only: sign in as an admin"), 403)
    filters = {k: request.query_params.get(k, "") for k in FILTERS}
    try:
        rows = await run.io_bound(fetch_rows, auth.db, filters, 100_000) or []
    except FilterError as exc:
        reason = f"bad date: {str(exc)[:64]!r}"
        return JSONResponse(error_shape("invalid_request", reason), status_code=422)
    return Response(
        to_csv(rows),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="audit.csv"'},
    )


if not any(getattr(r, "path", None) == CSV_PATH for r in app.routes):
    app.add_api_route(CSV_PATH, audit_csv, methods=["GET"], include_in_schema=False)


@ui.page("/audit", title="Audit · ss-tools agent")
async def audit_page(request: Request, lang: str | None = None):
    """The audit log in the app's shell (its header); the filters and the page number
    live in the URL, so a filtered view can be shared (issue 25)."""
    auth = installed(request.app).auth
    user = session.current_user(auth)
    if user is None:
        return RedirectResponse(session.login_url(session.request_target(request)))
    language = pick_language(
        lang, app.storage.user.get("lang"), request.headers.get("accept-language")
    )
    if not user.is_admin:
        return forbidden_page(language)
    filters = {k: request.query_params.get(k, "") for k in FILTERS}
    state = {"page": _page_number(request.query_params.get("page")), "pages": 1}
    columns = [{"name": c, "label": c, "field": c, "align": "left"} for c in COLUMNS]

    def query(page: int) -> str:
        params = {k: v for k, v in filters.items() if v}
        if page > 1:
            params["page"] = str(page)
        return urlencode(params)

    async def show(page: int) -> None:
        error.set_text("")
        try:
            rows, total = await run.io_bound(fetch_page, auth.db, dict(filters), page) or ([], 0)
        except FilterError:
            error.set_text(t("bad_date", language))
            return
        state["pages"] = max(1, -(-total // PAGE_SIZE))
        state["page"] = min(max(1, page), state["pages"])
        table.rows = rows
        table.update()
        count.set_text(t("rows_found", language, n=total))
        where.set_text(t("audit_page", language, page=state["page"], pages=state["pages"]))
        back.set_enabled(state["page"] > 1)
        on.set_enabled(state["page"] < state["pages"])
        shared = query(state["page"])
        ui.navigate.history.replace("/audit" + (f"?{shared}" if shared else ""))

    async def apply() -> None:
        await show(1)

    def export() -> None:
        shared = urlencode({k: v for k, v in filters.items() if v})
        ui.download(CSV_PATH + (f"?{shared}" if shared else ""), filename="audit.csv")

    def choose_language(value: str) -> None:
        app.storage.user["lang"] = value
        shared = query(state["page"])
        ui.navigate.to("/audit" + (f"?{shared}" if shared else ""))

    def sign_out() -> None:
        session.sign_out(auth)
        ui.navigate.to("/login")

    core = installed(request.app).core
    counter = await approvals_counter(core, user.principal)  # the header's approvals count
    shell_header(
        lang=language,
        username=user.username,
        role=user.role,
        title=t("audit_title", language),
        on_language=choose_language,
        on_sign_out=sign_out,
        approvals=counter,
    )
    with ui.row().classes("w-full items-center gap-4 p-4"):  # (the title is the header's)
        ui.space()
        count = ui.label("").mark("audit-count")
    with ui.row().classes("w-full items-end gap-2 px-4"):
        ui.input(t("filter_user", language)).bind_value(filters, "user").mark("filter-user")
        ui.input(t("filter_tool", language)).bind_value(filters, "tool").mark("filter-tool")
        ui.select(
            {"": "—", **{d: d for d in sorted(DECISIONS)}}, label=t("filter_decision", language)
        ).bind_value(filters, "decision").classes("min-w-[8rem]").mark("filter-decision")
        ui.input(t("filter_env", language)).bind_value(filters, "env").mark("filter-env")
        ui.input(t("filter_since", language)).bind_value(filters, "since").mark("filter-since")
        ui.input(t("filter_until", language)).bind_value(filters, "until").mark("filter-until")
        ui.input(t("filter_approval", language)).bind_value(filters, "approval").mark(
            "filter-approval"
        )
        ui.button(t("apply_filters", language), icon="filter_alt", on_click=apply).mark(
            "apply-filters"
        )
        ui.button(t("export_csv", language), icon="download", on_click=export).mark("export-csv")
    error = ui.label("").classes("text-red-700 px-4").mark("audit-error")
    table = ui.table(columns=columns, rows=[], row_key="id", pagination=0)
    table.classes("w-full px-4").props("dense wrap-cells hide-pagination").mark("audit-table")
    table.add_slot("body-cell-args", ARGS_CELL)
    with ui.row().classes("w-full items-center justify-end gap-2 px-4 pb-4"):
        back = (
            ui.button(
                t("audit_previous", language),
                icon="chevron_left",
                on_click=lambda: show(state["page"] - 1),
            )
            .props("flat")
            .mark("audit-previous")
        )
        where = ui.label("").mark("audit-page")
        on = (
            ui.button(
                t("audit_next", language),
                icon="chevron_right",
                on_click=lambda: show(state["page"] + 1),
            )
            .props("flat")
            .mark("audit-next")
        )
    await show(state["page"])
    # last: a timer makes NiceGUI answer as soon as the page connects (before apply ends)
    keep_counting(counter, core, user.principal)
    session.watch(auth, request)  # a revoked admin loses the open page within seconds
    return None


def _page_number(value: str | None) -> int:
    try:
        return max(1, int(value or 1))
    except ValueError:
        return 1
