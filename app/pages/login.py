"""/login: "Username", "Password", "Sign in"; errors inline; back to ``?next=``.

A correct password sends the browser through ``/login/complete`` (a new browser id, see
:mod:`app.pages.session`). Failed sign-ins are throttled per username and per client
(the same limits as ``POST /api/auth/token``): while blocked, the form says when to try
again. A browser arriving with the id of an ended session gets a new id first.
"""

from __future__ import annotations

from nicegui import app, run, ui
from starlette.requests import Request
from starlette.responses import RedirectResponse

from app.errors import SsToolsError
from app.i18n import t
from app.pages import session
from app.parts import installed

THROTTLED = {
    "en": "Too many failed sign-ins. Try again in {s} s.",
    "ru": "Слишком много неудачных попыток входа. Повторите через {s} с.",
}


@ui.page("/login", title="Sign in · ss-tools agent")
async def login_page(request: Request, next: str = "", lang: str | None = None):
    auth = installed(request.app).auth
    target = session.safe_next(next)
    bid = session.browser_id(request)
    if await run.io_bound(session.needs_new_id, auth.db, bid):
        session.rotate_browser_id(request)  # an ended session's id is never reused
        return RedirectResponse(session.request_target(request), status_code=303)
    if await run.io_bound(session.user_for, auth, bid) is not None:
        return RedirectResponse(target)
    language = session.page_language(request, lang)
    client = request.client.host if request.client else None
    ui.add_css(_CSS_LINK)

    async def submit() -> None:
        error.set_text("")
        if not (username.value or "").strip() or not password.value:
            error.set_text(t("fill_both", language))
            return
        try:
            result = await session.sign_in(
                auth, username.value, password.value, client=client, bid=bid, target=target
            )
        except SsToolsError as exc:
            error.set_text(f"{t('login_unavailable', language)} ({exc.message})")
            return
        if result.outcome == "throttled":
            template = THROTTLED.get(language, THROTTLED["en"])
            error.set_text(template.format(s=result.retry_after_s))
            password.value = ""
            return
        if result.outcome == "bad":
            error.set_text(t("bad_credentials", language))
            password.value = ""
            return
        ui.navigate.to(result.next_url)

    with ui.column().classes("absolute-center w-80 gap-3"):
        ui.label(t("sign_in_title", language)).classes("text-xl font-semibold")
        username = (
            ui.input(t("username", language)).props("outlined autofocus").classes("w-full")
        ).mark("username")
        password = (
            ui.input(t("password", language), password=True, password_toggle_button=True)
            .props("outlined")
            .classes("w-full")
            .mark("password")
        )
        password.on("keydown.enter", submit)
        error = (
            ui.label("").classes("text-red-700 text-sm").props('role="alert"').mark("login-error")
        )
        ui.button(t("sign_in", language), on_click=submit).classes("w-full").mark("sign-in")
    return None


_CSS_LINK = "body { background: #f1f5f9; }"


async def complete_sign_in(request: Request) -> RedirectResponse:
    """``GET /login/complete``: :func:`app.pages.session.complete_sign_in` with the app's
    auth gate."""
    return await session.complete_sign_in(installed(request.app).auth, request)


# registered here (a page module, re-imported with the pages) rather than in session.py
if not any(getattr(r, "path", None) == session.COMPLETE_PATH for r in app.routes):
    app.add_api_route(
        session.COMPLETE_PATH, complete_sign_in, methods=["GET"], include_in_schema=False
    )
