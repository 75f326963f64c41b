"""The composer: the message box and its Send button, below the chat.

Enter sends and Shift+Enter starts a new line (a textarea that grows). While the agent
streams, Send becomes **Stop**: reads in flight are cancelled, a write already under way
goes on (its card says so). The box gets the focus back after a confirmation. A message
sent while a confirmation card waits stays in the box, and the page says above the box
to confirm or cancel the action first (never a silent drop). A message refused before its turn
started (too many a minute, too many running) comes back into the box.
"""

from __future__ import annotations

from typing import Any

from nicegui import ui

from app.i18n import t
from app.screen.chat_model import AgentChatModel
from components.bind import on_change
from components.focus import focus_on

# Enter without Shift (and not while an input method composes): send, no newline.
ENTER_SENDS = "(e) => { if (!e.shiftKey && !e.isComposing) { e.preventDefault(); emit(); } }"


def _put_back(field: ui.textarea, draft: Any) -> None:
    """A refused message back in the box (``model.draft_request``: ``(text, n)``), unless
    the person has started typing another one meanwhile."""
    if isinstance(draft, tuple) and draft[0] and not field.value:
        field.value = draft[0]


def composer(model: AgentChatModel) -> ui.element:
    lang = model.lang

    async def submit() -> None:
        text = field.value or ""
        if not model.accepts_message(text):  # under a waiting card it says why
            return
        field.value = ""
        await model.send(text)

    hint = ui.label().classes("text-sm font-semibold text-red-800").mark("composer-hint")
    hint.props('role="alert"').bind_text_from(model, "composer_hint")
    hint.bind_visibility_from(model, "composer_hint", backward=bool)
    with ui.row().classes("w-full items-end gap-2 no-wrap") as row:
        field = (
            ui.textarea(placeholder=t("chat_placeholder", lang))
            .classes("flex-grow")
            .props('outlined dense autogrow autofocus rows="1" aria-label="message"')
            .mark("chat-input")
        )
        field.on("keydown.enter", submit, js_handler=ENTER_SENDS)
        focus_on(field, model, "input")
        on_change(field, model, "draft_request", lambda draft: _put_back(field, draft))
        # enabled under a waiting card too: a press there says what to do first
        ui.button(t("send", lang), icon="send", on_click=submit).bind_enabled_from(
            model, "state", backward=lambda s: s != "streaming"
        ).bind_visibility_from(model, "state", backward=lambda s: s != "streaming").mark(
            "send-button"
        )
        stop = ui.button(t("stop", lang), icon="stop_circle", on_click=model.stop)
        stop.props('color="negative" aria-label="stop"').mark("stop-button")
        stop.bind_visibility_from(model, "state", backward=lambda s: s == "streaming")
        stop.bind_enabled_from(model, "stopping", backward=lambda busy: not busy)
        stop.bind_text_from(
            model, "stopping", backward=lambda busy: t("stopping" if busy else "stop", lang)
        )
    return row
