"""/login: "Username", "Password", "Sign in"; errors inline; back to ``?next=``."""

from __future__ import annotations

from nicegui import app, ui
from starlette.requests import Request
from starlette.responses import RedirectResponse

from app.errors import SsToolsError
from app.i18n import pick_language, t
from app.pages import session


@ui.page("/login", title="Sign in · ss-tools agent")
async def login_page(request: Request, next: str = "", lang: str | None = None):
    target = session.safe_next(next)
    if session.current_user() is not None:
        return RedirectResponse(target)
    language = pick_language(
        lang, app.storage.user.get("lang"), request.headers.get("accept-language")
    )
    ui.add_css(_CSS_LINK)

    async def submit() -> None:
        error.set_text("")
        if not (username.value or "").strip() or not password.value:
            error.set_text(t("fill_both", language))
            return
        try:
            user = await session.sign_in(username.value, password.value)
        except SsToolsError as exc:
            error.set_text(f"{t('login_unavailable', language)} ({exc.message})")
            return
        if user is None:
            error.set_text(t("bad_credentials", language))
            password.value = ""
            return
        ui.navigate.to(target)

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
