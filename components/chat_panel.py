"""The chat panel: prod banner atop, messages (neutral agent bubbles, distinct user
bubbles, markdown rendered inert, offers as buttons) and tool cards, the confirmation and
permission cards, connection state, and the composer (``components.composer``).

The panel's background follows ``model.is_prod_context`` (warning tone in prod).
"""

from __future__ import annotations

from nicegui import ui

from app.i18n import t
from app.screen.chat_model import AgentChatModel
from app.screen.items import ChatItem, ChatMessage
from app.screen.markdown_text import chat_markdown
from app.text import hosts_of
from components.approval_wait_card import approval_wait_card
from components.bind import bind_classes_from
from components.composer import composer
from components.confirmation_card import confirmation_card
from components.connection_banner import connection_banner
from components.markdown import bind_markdown, safe_markdown
from components.offers import offer_buttons
from components.permission_card import permission_card
from components.process_steps import process_steps
from components.prod_banner import prod_banner
from components.tool_call_card import tool_call_card

PROD_BG = "bg-warning-light prod-warning"
NORMAL_BG = "bg-surface-page"
PRIMARY = "#1d4ed8"


BUBBLE_PROPS = {
    "user": "bg-color=blue-1 text-color=grey-10",
    "assistant": "bg-color=grey-2 text-color=grey-10",
}
KIND_ICONS = {
    "error": ("error_outline", "text-red-700"),
    "notice": ("info", "text-blue-800"),
    "problem": ("info_outline", "text-gray-600"),  # the turn ended on what the model did
}
KIND_TEXT = {"problem": "text-gray-700"}  # muted: the core's own sentence, not an answer


def message_bubble(model: AgentChatModel, message: ChatMessage) -> ui.element:
    """A bubble: the user's distinct, the agent's neutral (an outcome is the tool card's
    colour, never the bubble's). Markdown renders as markdown, inert; an error says its
    kind with an icon and keeps the server's own text as a folded detail."""
    lang = model.lang
    sent = message.role == "user"
    bubble = ui.chat_message(name=t("you" if sent else "agent", lang), sent=sent)
    bubble.classes("w-full").props(BUBBLE_PROPS[message.role])
    with bubble, ui.column().classes("w-full gap-1"):
        with ui.row().classes("w-full items-start gap-2 no-wrap"):
            if message.kind in KIND_ICONS:
                name, tone = KIND_ICONS[message.kind]
                ui.icon(name).classes(f"text-xl {tone}").mark(f"message-{message.kind}")
            hosts = hosts_of(env.url for env in model.environments)  # links only to Superset
            body = bind_markdown(safe_markdown(allowed_hosts=hosts), message, "text", chat_markdown)
            body.classes(f"chat-markdown min-w-0 flex-grow {KIND_TEXT.get(message.kind, '')}")
            body.mark("message-text")
        with (
            ui.expansion(t("details", lang))
            .classes("text-xs text-gray-700")
            .props("dense")
            .bind_visibility_from(message, "detail", backward=bool)
            .mark("message-detail")
        ):
            ui.label().classes("font-mono whitespace-pre-wrap").bind_text_from(message, "detail")
        if not sent:
            offer_buttons(model, message)
    return bubble.mark("user-message" if sent else "assistant-message")


def chat_panel(model: AgentChatModel) -> ui.element:
    lang = model.lang
    ui.colors(primary=PRIMARY)  # white on the default primary is 3:1; this is 6.7:1
    panel = ui.column().classes("w-full max-w-4xl mx-auto gap-0 rounded shadow").mark("chat-panel")
    bind_classes_from(panel, model, "is_prod_context", {True: PROD_BG}, default=NORMAL_BG)
    with panel:
        prod_banner(model)
        with ui.column().classes("w-full gap-2 p-4"):
            process_steps(model)
            ui.label(t("empty_chat", lang)).classes("text-gray-700").bind_visibility_from(
                model, "is_empty"
            ).mark("empty-chat")
            items = ui.column().classes("w-full gap-2").mark("chat-items")
            confirmation_card(model)
            approval_wait_card(model)  # a call that waits for a second person
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
