"""/agent: the chat page. Deep links carry the context:
``/agent?objectType=dashboard&objectId=42&objectName=Sales&envId=prod`` (see docs/page.md);
``/agent?conv=<conv_id>`` opens one of the user's conversations with its pending card
(the link the MCP door hands out when a client cannot show a confirmation).

One visit, one context (a card is never shown under another object's pill): a link that
names a context starts a new conversation in it, unless the remembered conversation was
held in that same context (a reload); a visit without one shows the remembered conversation
with the context it was held in.

Per visit: one AgentChatModel (kept in ``app.storage.client['agent_model']`` so tests can
reach it) and one AgentPageController (``['agent_controller']``) wired to the agent core;
components bind to the model; a ``ui.timer`` drives its countdown ``tick``.
"""

from __future__ import annotations

import functools
import logging
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlencode

from nicegui import app, ui
from starlette.requests import Request
from starlette.responses import RedirectResponse

from app.agent.core import AgentCore, prepare_call, prepare_resume, prepare_turn
from app.i18n import normalize_language
from app.pages import session
from app.pages.agent_controller import AgentPageController
from app.pages.approvals_count import approvals_counter, keep_counting
from app.pages.core_door import CoreDoor
from app.parts import installed
from app.screen.chat_model import AgentChatModel
from components.chat_panel import chat_panel
from components.conversation_drawer import conversation_drawer
from components.header import header
from components.link_form import LinkForm

log = logging.getLogger("ss_tools.pages")
ASSETS = Path(__file__).resolve().parents[2] / "assets"


def core_door(core: AgentCore) -> CoreDoor:
    """The page's door onto the app's agent core: the one place the page reaches the core
    (tests replace this function by dotted path)."""
    return CoreDoor(
        core=core,
        prepare_turn=functools.partial(prepare_turn, core=core),
        prepare_resume=functools.partial(prepare_resume, core=core),
        prepare_call=functools.partial(prepare_call, core=core),
    )


@lru_cache(maxsize=1)
def page_css() -> str:
    return (ASSETS / "agent.css").read_text(encoding="utf-8")


@ui.page("/agent", title="ss-tools agent")
async def agent_page(request: Request, lang: str | None = None):
    parts = installed(request.app)
    user = session.current_user(parts.auth)
    if user is None:
        return RedirectResponse(session.login_url(session.request_target(request)))
    settings = parts.settings
    language = session.page_language(request, lang)
    linked = request.query_params.get("conv")  # a link to one conversation (the MCP door's)
    conv_id = linked or app.storage.user.get("conv_id")
    model = AgentChatModel(
        role=user.role,
        lang=language,
        conv_id=conv_id,
    )
    controller = AgentPageController(
        model,
        core_door(parts.core),
        principal=user.principal,
        token=user.token,
        on_warning=lambda text: ui.notify(text, type="warning"),
    )
    app.storage.user["conv_id"] = model.conv_id
    app.storage.client["agent_model"] = model
    app.storage.client["agent_controller"] = controller
    controller.client_host = request.client.host if request.client else None
    controller.open(request.query_params)

    def choose_language(value: str) -> None:
        if normalize_language(value):
            app.storage.user["lang"] = value
            ui.navigate.to(_without_lang(request))

    def new_conversation() -> None:
        app.storage.user["conv_id"] = controller.new_conversation()

    def sign_out() -> None:
        session.sign_out(parts.auth)
        ui.navigate.to("/login")

    # a reset (new conversation, an entry opened in the drawer) is remembered for reloads
    model.on_reset(lambda: app.storage.user.update(conv_id=model.conv_id))
    ui.add_css(page_css())
    waiting_for_me = await approvals_counter(parts.core, user.principal)  # four-eyes
    header(
        model,
        username=user.username,
        on_language=choose_language,
        on_new_conversation=new_conversation,
        on_sign_out=sign_out,
        on_conversations=model.toggle_drawer,
        approvals=waiting_for_me,
    )
    conversation_drawer(model, on_new=new_conversation)
    controller.on_link_account = LinkForm(language, controller.link_account).open_for
    with ui.column().classes("w-full p-4") as root:
        chat_panel(model)
        ui.timer(settings.countdown_tick_s, model.tick)
        # a call that waits for a second person: its result lands here when decided
        ui.timer(settings.approval_poll_s, controller.poll_approval)
    root.mark("agent-root")
    if linked:
        app.storage.user["conv_id"] = await controller.open_conversation()
    elif conv_id:  # one visit, one context: see resume_visit
        app.storage.user["conv_id"] = await controller.resume_visit()
    keep_counting(waiting_for_me, parts.core, user.principal)  # (timers last)
    # a revoked session (disabled, deleted, re-roled) leaves the page
    session.watch(parts.auth, request)
    return None


def _without_lang(request: Request) -> str:
    params = [(k, v) for k, v in request.query_params.multi_items() if k != "lang"]
    query = urlencode(params)
    return request.url.path + (f"?{query}" if query else "")
