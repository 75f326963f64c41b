"""/agent: the chat page. Deep links carry the context:
``/agent?objectType=dashboard&objectId=42&objectName=Sales&envId=prod`` (see README).

One AgentChatModel per visit (kept in ``app.storage.client['agent_model']`` so tests can
reach it); components bind to it; a ``ui.timer`` drives its countdown ``tick``.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from nicegui import app, ui
from starlette.requests import Request
from starlette.responses import RedirectResponse

from app.errors import SsToolsError
from app.pages import session
from app.screen.backend import AgentBackend, Backend
from app.screen.i18n import normalize_language, pick_language
from app.screen.model import AgentChatModel
from app.screen.uicontext import env_tier
from app.settings import get_settings
from components.chat_panel import chat_panel
from components.header import header

log = logging.getLogger("ss_tools.pages")
ASSETS = Path(__file__).resolve().parents[2] / "assets"


def backend_factory() -> Backend:
    """The backend of a page visit (tests replace this by dotted path)."""
    return AgentBackend()


@lru_cache(maxsize=1)
def page_css() -> str:
    return (ASSETS / "agent.css").read_text(encoding="utf-8")


def load_environments(backend: Backend) -> list[dict[str, Any]]:
    try:
        return backend.environments()
    except SsToolsError as exc:  # a broken environments file must not take the page down
        log.warning("environments unavailable on /agent: %s", exc)
        ui.notify(str(exc), type="warning")
        return []


def default_env(environments: list[dict[str, Any]]) -> str | None:
    """No env in the link: the first non-prod environment, else none."""
    for env in environments:
        if env_tier(str(env.get("id")), environments) != "prod":
            return str(env["id"])
    return None


@ui.page("/agent", title="ss-tools agent")
async def agent_page(request: Request, lang: str | None = None):
    user = session.current_user()
    if user is None:
        return RedirectResponse(session.login_url(session.request_target(request)))
    settings = get_settings()
    language = pick_language(
        lang, app.storage.user.get("lang"), request.headers.get("accept-language")
    )
    backend = backend_factory()
    environments = load_environments(backend)
    restoring = bool(app.storage.user.get("conv_id"))
    model = AgentChatModel(
        backend,
        user_id=user.username,
        user_jwt=user.token,
        role=user.role,
        lang=language,
        conv_id=app.storage.user.get("conv_id"),
        environments=environments,
        default_countdown_s=settings.dangerous_countdown_s,
    )
    app.storage.user["conv_id"] = model.conv_id
    app.storage.client["agent_model"] = model
    model.set_ui_context_from_params(request.query_params)
    if model.active_env_id is None and (env := default_env(environments)):
        model.update_active_env(env)

    def choose_language(value: str) -> None:
        if normalize_language(value):
            app.storage.user["lang"] = value
            ui.navigate.to(_without_lang(request))

    def new_conversation() -> None:
        model.reset()
        app.storage.user["conv_id"] = model.conv_id

    def sign_out() -> None:
        session.sign_out()
        ui.navigate.to("/login")

    ui.add_css(page_css())
    header(
        model,
        username=user.username,
        on_language=choose_language,
        on_new_conversation=new_conversation,
        on_sign_out=sign_out,
    )
    with ui.column().classes("w-full p-4") as root:
        chat_panel(model)
        ui.timer(settings.countdown_tick_s, model.tick)
    root.mark("agent-root")
    if restoring:
        await _restore(model)
    return None


async def _restore(model: AgentChatModel) -> None:
    """A reload or a second tab: bring back the history and a pending confirmation."""
    try:
        await model.restore()
    except SsToolsError as exc:
        log.info("conversation %s not restored: %s", model.conv_id, exc)
        model.reset()
        app.storage.user["conv_id"] = model.conv_id


def _without_lang(request: Request) -> str:
    params = [(k, v) for k, v in request.query_params.multi_items() if k != "lang"]
    query = urlencode(params)
    return request.url.path + (f"?{query}" if query else "")
