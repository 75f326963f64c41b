"""Header: the conversation drawer's button, product name, context pill, environment
selector, language switch, user and role, new conversation, sign out."""

from __future__ import annotations

from collections.abc import Callable

from nicegui import ui

from app.i18n import LANGUAGES, t
from app.screen.approvals_queue import ApprovalsCount
from app.screen.model import AgentChatModel
from components.approvals_link import approvals_link
from components.context_pill import context_pill
from components.env_selector import env_selector


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
        if on_conversations is not None:  # the conversation drawer (issue 11)
            ui.button(icon="menu", on_click=on_conversations).props(
                f'flat round dense aria-label="{t("conversations", lang)}"'
            ).tooltip(t("conversations", lang)).mark("conversations-button")
        ui.label(t("product_name", lang)).classes("text-lg font-bold").mark("product-name")
        context_pill(model)
        ui.space()
        env_selector(model)
        ui.toggle(
            {code: code.upper() for code in LANGUAGES},
            value=lang,
            on_change=lambda e: on_language(e.value),
        ).props('dense flat aria-label="language"').mark("language-switch")
        if approvals is not None:  # how many wait for this person's approval (four-eyes)
            approvals_link(approvals, lang)
        ui.button(icon="add_comment", on_click=on_new_conversation).props(
            f'flat round dense aria-label="{t("new_conversation", lang)}"'
        ).tooltip(t("new_conversation", lang)).mark("new-conversation")
        with ui.column().classes("gap-0 items-end"):
            ui.label(username).classes("text-sm").mark("user-name")
            ui.label(
                t(f"role_{model.role}", lang) if model.role in ("admin", "analyst") else model.role
            ).classes("text-xs opacity-80").mark("user-role")
        ui.button(t("sign_out", lang), icon="logout", on_click=on_sign_out).props(
            "flat dense"
        ).mark("sign-out")
    return bar


def shell_header(
    *,
    lang: str,
    username: str,
    role: str,
    title: str,
    on_language: Callable[[str], object],
    on_sign_out: Callable[[], object],
    approvals: ApprovalsCount | None = None,
) -> ui.header:
    """The app's header on a page other than /agent (the audit log, issue 25; the
    approvals): the same bar — product name (a link back to the agent), the page's title,
    the language switch, the approvals link, the user and role, sign out."""
    with ui.header().classes("items-center gap-3 bg-slate-800 text-white px-4 py-2") as bar:
        ui.link(t("product_name", lang), "/agent").classes(
            "text-lg font-bold text-white no-underline"
        ).mark("product-name")
        ui.label(title).classes("text-base opacity-90").mark("page-title")
        ui.space()
        ui.toggle(
            {code: code.upper() for code in LANGUAGES},
            value=lang,
            on_change=lambda e: on_language(e.value),
        ).props('dense flat aria-label="language"').mark("language-switch")
        if approvals is not None:
            approvals_link(approvals, lang)
        with ui.column().classes("gap-0 items-end"):
            ui.label(username).classes("text-sm").mark("user-name")
            ui.label(t(f"role_{role}", lang) if role in ("admin", "analyst") else role).classes(
                "text-xs opacity-80"
            ).mark("user-role")
        ui.button(t("sign_out", lang), icon="logout", on_click=on_sign_out).props(
            "flat dense"
        ).mark("sign-out")
    return bar
