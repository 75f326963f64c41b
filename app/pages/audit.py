"""/audit (admins only): the audit rows with filters and a CSV export, in the app's
shell (its header and conversation drawer); the database pages the rows (the table holds
millions), the filters and the page number are the URL's query; a row unfolds into its
arguments as a name/value table, and links to the conversation that made it (rows:
``app.pages.audit_rows``; the table: ``components.audit_table``).

Analysts get a plain 403 page ("Admins only"). The export is ``GET /api/audit.csv`` with the
same filters as query parameters; it accepts the page session or an admin Bearer token.
"""

from __future__ import annotations

import html
from urllib.parse import urlencode

from nicegui import app, run, ui
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from app.auth import AuthGate, bearer_token
from app.errors import AuthError, error_shape
from app.i18n import t
from app.pages import session
from app.pages.approvals_count import keep_counting
from app.pages.audit_rows import (
    COLUMNS,
    FILTERS,
    PAGE_SIZE,
    FilterError,
    fetch_page,
    fetch_rows,
    parse_day,
    to_csv,
)
from app.pages.shell import ShellConversations, ShellDrawer, signed_in_header
from app.parts import installed
from app.store.audit_log import DECISIONS
from components.audit_table import audit_table
from components.conversation_drawer import conversation_drawer

__all__ = ["COLUMNS", "FILTERS", "PAGE_SIZE", "fetch_page", "fetch_rows", "parse_day", "to_csv"]
CSV_PATH = "/api/audit.csv"


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
    """The audit log in the app's shell (its header and the conversation drawer); the
    filters and the page number live in the URL, so a filtered view can be shared."""
    parts = installed(request.app)
    auth = parts.auth
    user = session.current_user(auth)
    if user is None:
        return RedirectResponse(session.login_url(session.request_target(request)))
    language = session.page_language(request, lang)
    if not user.is_admin:
        return forbidden_page(language)
    filters = {k: request.query_params.get(k, "") for k in FILTERS}
    state = {"page": _page_number(request.query_params.get("page")), "pages": 1}

    def query(page: int) -> str:
        params = {k: v for k, v in filters.items() if v}
        if page > 1:
            params["page"] = str(page)
        return urlencode(params)

    async def show(page: int) -> None:
        error.set_text("")
        try:
            rows, total = await run.io_bound(
                fetch_page, auth.db, dict(filters), page, viewer=user.username, lang=language
            ) or ([], 0)
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

    def new_conversation() -> None:
        app.storage.user.pop("conv_id", None)  # /agent then starts a new one
        ui.navigate.to("/agent")

    history = ShellConversations(language)
    ShellDrawer(
        history,
        parts.core,
        user.principal,
        navigate=ui.navigate.to,
        on_error=lambda text: ui.notify(text, type="warning"),
    )
    counter = await signed_in_header(
        parts,
        user,
        language,
        t("audit_title", language),
        choose_language,
        on_conversations=history.toggle_drawer,
        on_new_conversation=new_conversation,
    )
    conversation_drawer(history, on_new=new_conversation)
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
        ui.input(t("filter_conversation", language)).bind_value(filters, "conv").mark(
            "filter-conversation"
        )
        ui.input(t("filter_approval", language)).bind_value(filters, "approval").mark(
            "filter-approval"
        )
        ui.button(t("apply_filters", language), icon="filter_alt", on_click=apply).mark(
            "apply-filters"
        )
        ui.button(t("export_csv", language), icon="download", on_click=export).mark("export-csv")
    error = ui.label("").classes("text-red-700 px-4").mark("audit-error")
    table = audit_table(language)
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
    keep_counting(counter, parts.core, user.principal)
    session.watch(auth, request)  # a revoked admin loses the open page within seconds
    return None


def _page_number(value: str | None) -> int:
    try:
        return max(1, int(value or 1))
    except ValueError:
        return 1
