"""The conversation drawer: the person's conversations, newest first — title,
page context and environment, when it was last updated, a badge when a confirmation
waits. Opening one brings everything back (messages, tool cards with results, a pending
card); each can be renamed or archived (hidden; its history and audit trail stay).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from nicegui import ui

from app.i18n import t
from app.screen.history import ConversationEntry


class DrawerModel(Protocol):
    """What the drawer reads and asks of its model: /agent's AgentChatModel, or the
    shell's list on another page (``app.pages.shell``)."""

    lang: str
    conv_id: str
    conversations: list[ConversationEntry]
    drawer_open: bool

    def on_conversations_changed(self, callback: Callable[[], object]) -> None: ...
    def on_reset(self, callback: Callable[[], object]) -> None: ...
    async def open_conversation(self, conv_id: str) -> bool: ...
    async def rename_conversation(self, conv_id: str, title: str) -> bool: ...
    async def archive_conversation(self, conv_id: str) -> None: ...


def context_line(entry: ConversationEntry, lang: str) -> str:
    what = t(f"object_{entry.object_type}", lang) if entry.object_type else t("no_context", lang)
    return f"{what} · {entry.env_id or t('any_env', lang)}"


def _entry(model: DrawerModel, entry: ConversationEntry, lang: str) -> ui.element:
    current = entry.conv_id == model.conv_id
    tone = "bg-blue-50 border-blue-400" if current else "border-transparent"
    item = ui.column().classes(f"w-full gap-0 p-2 rounded border-l-4 {tone}")
    item.mark("conversation-entry")
    with item:
        with ui.row().classes("w-full items-center gap-1 no-wrap"):
            title = ui.label(entry.title or "—").classes("font-medium cursor-pointer truncate")
            title.on("click", lambda: model.open_conversation(entry.conv_id))
            title.mark("conversation-title")
            ui.space()
            if entry.pending:
                ui.badge(t("pending_badge", lang), color="orange").props(
                    'aria-label="pending confirmation"'
                ).mark("pending-badge")
        ui.label(context_line(entry, lang)).classes("text-xs text-gray-600").mark(
            "conversation-context"
        )
        when = entry.updated_at.strftime("%Y-%m-%d %H:%M UTC")
        ui.label(t("updated_at", lang, when=when)).classes("text-xs text-gray-500")
        with ui.row().classes("w-full items-center gap-1 no-wrap") as rename_row:
            name = ui.input(value=entry.title).props("dense outlined").classes("flex-grow")
            name.mark("rename-input")

            async def save() -> None:
                await model.rename_conversation(entry.conv_id, name.value or "")

            name.on("keydown.enter", save)
            ui.button(t("save", lang), on_click=save).props("flat dense").mark("rename-save")
        rename_row.set_visibility(False)
        with ui.row().classes("gap-1"):
            ui.button(
                t("rename", lang), icon="edit", on_click=lambda: rename_row.set_visibility(True)
            ).props("flat dense size=sm").mark("rename-button")
            ui.button(
                t("archive", lang),
                icon="archive",
                on_click=lambda: model.archive_conversation(entry.conv_id),
            ).props("flat dense size=sm").mark("archive-button")
    return item


def conversation_drawer(model: DrawerModel, *, on_new: Callable[[], object]) -> ui.element:
    """A left drawer bound to ``model.drawer_open``; ``on_new`` starts a new conversation
    (the old one stays in the list)."""
    lang = model.lang
    drawer = ui.left_drawer(value=False).props("bordered width=320").mark("conversation-drawer")
    drawer.bind_value(model, "drawer_open")
    with drawer:
        with ui.row().classes("w-full items-center"):
            ui.label(t("conversations", lang)).classes("text-lg font-semibold")
            ui.space()
            ui.button(icon="add_comment", on_click=on_new).props(
                f'flat round dense aria-label="{t("new_conversation", lang)}"'
            ).mark("drawer-new")
        empty = ui.label(t("no_conversations", lang)).classes("text-gray-500")
        empty.mark("no-conversations")
        entries = ui.column().classes("w-full gap-1").mark("conversation-list")

    def render() -> None:
        entries.clear()
        empty.set_visibility(not model.conversations)
        with entries:
            for entry in model.conversations:
                _entry(model, entry, lang)

    render()
    model.on_conversations_changed(render)
    model.on_reset(render)  # the current conversation's highlight follows
    return drawer
