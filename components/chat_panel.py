"""The chat panel: prod banner atop, messages and tool cards, the confirmation and
permission cards, connection state, and the composer (``components.composer``).

The panel's background follows ``model.is_prod_context`` (warning tone in prod).
"""

from __future__ import annotations

from functools import partial

from nicegui import ui

from app.i18n import t
from app.safe_html import sanitize_html
from app.screen.items import ChatItem, ChatMessage
from app.screen.model import AgentChatModel
from app.text import hosts_of
from components.bind import bind_classes_from
from components.composer import composer
from components.confirmation_card import confirmation_card
from components.connection_banner import connection_banner
from components.permission_card import permission_card
from components.process_steps import process_steps
from components.prod_banner import prod_banner
from components.tool_call_card import tool_call_card

PROD_BG = "bg-warning-light prod-warning"
NORMAL_BG = "bg-surface-page"


def message_bubble(model: AgentChatModel, message: ChatMessage) -> ui.element:
    lang = model.lang
    sent = message.role == "user"
    bubble = ui.chat_message(name=t("you" if sent else "agent", lang), sent=sent).classes("w-full")
    # raw HTML reduced to markdown's own tags; links only to the Superset hosts (issue 9)
    hosts = hosts_of(env.url for env in model.environments)
    with bubble:
        body = ui.markdown(
            "",
            extras=["fenced-code-blocks", "tables"],
            sanitize=partial(sanitize_html, allowed_hosts=hosts),
        ).bind_content_from(message, "text")
        if message.kind == "error":
            body.classes("text-red-700")
    return bubble.mark("user-message" if sent else "assistant-message")


def chat_panel(model: AgentChatModel) -> ui.element:
    lang = model.lang
    panel = ui.column().classes("w-full max-w-4xl mx-auto gap-0 rounded shadow").mark("chat-panel")
    bind_classes_from(panel, model, "is_prod_context", {True: PROD_BG}, default=NORMAL_BG)
    with panel:
        prod_banner(model)
        with ui.column().classes("w-full gap-2 p-4"):
            process_steps(model)
            ui.label(t("empty_chat", lang)).classes("text-gray-500").bind_visibility_from(
                model, "is_empty"
            ).mark("empty-chat")
            items = ui.column().classes("w-full gap-2").mark("chat-items")
            confirmation_card(model)
            permission_card(model)
            connection_banner(model)
            composer(model)

    def render(item: ChatItem) -> None:
        with items:
            if isinstance(item, ChatMessage):
                message_bubble(model, item)
            else:
                tool_call_card(model, item)

    for existing in model.items:
        render(existing)
    model.on_item_added(render)
    model.on_reset(items.clear)
    return panel
