"""Header: the conversation drawer's button, product name, context pill, environment
selector, language switch, user and role, new conversation, sign out. Pages other than
/agent (the audit log) get the same bar with their title in place of the pill
(:func:`shell_header`)."""

from __future__ import annotations

from collections.abc import Callable

from nicegui import ui

from app.i18n import LANGUAGES, t
from app.screen.approvals_queue import ApprovalsCount
from app.screen.chat_model import AgentChatModel
from components.approvals_link import approvals_link
from components.context_pill import context_pill
from components.env_selector import env_selector


def _drawer_button(lang: str, on_conversations: Callable[[], object]) -> None:
    ui.button(icon="menu", on_click=on_conversations).props(
        f'flat round dense aria-label="{t("conversations", lang)}"'
    ).tooltip(t("conversations", lang)).mark("conversations-button")


def _language_switch(lang: str, on_language: Callable[[str], object]) -> None:
    ui.toggle(
        {code: code.upper() for code in LANGUAGES},
        value=lang,
        on_change=lambda e: on_language(e.value),
    ).props('dense flat aria-label="language"').mark("language-switch")


def _new_conversation_button(lang: str, on_new_conversation: Callable[[], object]) -> None:
    ui.button(icon="add_comment", on_click=on_new_conversation).props(
        f'flat round dense aria-label="{t("new_conversation", lang)}"'
    ).tooltip(t("new_conversation", lang)).mark("new-conversation")


def _user_and_sign_out(
    lang: str, username: str, role: str, on_sign_out: Callable[[], object]
) -> None:
    with ui.column().classes("gap-0 items-end"):
        ui.label(username).classes("text-sm").mark("user-name")
        ui.label(t(f"role_{role}", lang) if role in ("admin", "analyst") else role).classes(
            "text-xs opacity-80"
        ).mark("user-role")
    ui.button(t("sign_out", lang), icon="logout", on_click=on_sign_out).props("flat dense").mark(
        "sign-out"
    )


def header(
    model: AgentChatModel,
    *,
    username: str,
    on_language: Callable[[str], object],
    on_new_conversation: Callable[[], object],
    on_sign_out: Callable[[], object],
    on_conversations: Callable[[], object] | None = None,
    approvals: ApprovalsCount | None = None,
) -> ui.header:
    lang = model.lang
    with ui.header().classes("items-center gap-3 bg-slate-800 text-white px-4 py-2") as bar:
        if on_conversations is not None:  # the conversation drawer
            _drawer_button(lang, on_conversations)
        ui.label(t("product_name", lang)).classes("text-lg font-bold").mark("product-name")
        context_pill(model)
        ui.space()
        env_selector(model)
        _language_switch(lang, on_language)
        if approvals is not None:  # how many wait for this person's approval (four-eyes)
            approvals_link(approvals, lang)
        _new_conversation_button(lang, on_new_conversation)
        _user_and_sign_out(lang, username, model.role, on_sign_out)
    return bar


def shell_header(
    *,
    lang: str,
    username: str,
    role: str,
    title: str,
    on_language: Callable[[str], object],
    on_sign_out: Callable[[], object],
    on_conversations: Callable[[], object] | None = None,
    on_new_conversation: Callable[[], object] | None = None,
    approvals: ApprovalsCount | None = None,
) -> ui.header:
    """The app's header on a page other than /agent (the audit log, the approvals): the
    same bar — the drawer's button, the product name (a link back to the agent), the
    page's title, the language switch, the approvals link, new conversation, the user and
    role, sign out."""
    with ui.header().classes("items-center gap-3 bg-slate-800 text-white px-4 py-2") as bar:
        if on_conversations is not None:
            _drawer_button(lang, on_conversations)
        ui.link(t("product_name", lang), "/agent").classes(
            "text-lg font-bold text-white no-underline"
        ).mark("product-name")
        ui.label(title).classes("text-base opacity-90").mark("page-title")
        ui.space()
        _language_switch(lang, on_language)
        if approvals is not None:
            approvals_link(approvals, lang)
        if on_new_conversation is not None:
            _new_conversation_button(lang, on_new_conversation)
        _user_and_sign_out(lang, username, role, on_sign_out)
    return bar
