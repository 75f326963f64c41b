"""The ways on an answer offers (``ChatMessage.offers``, typed by the core), as buttons
under its bubble: each ``choice`` is a button (its label; the tooltip is its request;
any other offer but the next one looks the same);
``without_context`` is the primary button "Continue without this page's context" with the
request it makes written beside it ("Ask again without this page's context" when it makes
no call but asks the message again); ``link_account`` is the button "Connect your Superset
account (env)", which opens the page's form (never a message). Labels are the page's own
words, in its language. A click hands the offer to ``model.take_offer``. Disabled while a
turn runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nicegui import ui

from app.i18n import t
from app.screen.chat_model import BUSY, AgentChatModel
from app.screen.items import ChatMessage
from components.results.live import live_area

if TYPE_CHECKING:
    from app.events import Offer


def _idle(state: str) -> bool:
    return state not in BUSY


def _choices(model: AgentChatModel, offers: list[Offer]) -> None:
    with ui.row().classes("gap-2 wrap").mark("choices"):
        for offer in offers:
            button = ui.button(offer.label, on_click=lambda _e, o=offer: model.take_offer(o)).props(
                "outline no-caps dense color=blue-9"
            )
            button.tooltip(offer.request)
            button.bind_enabled_from(model, "state", backward=_idle).mark("choice-button")


def _without_context(model: AgentChatModel, offer: Offer) -> None:
    # the page's words: with a call, the call it makes; without, the message asked again
    words = "continue_without_context" if offer.call is not None else "ask_without_context"
    with ui.row().classes("items-center gap-2 wrap").mark("way-forward"):
        button = ui.button(
            t(words, model.lang),
            icon="arrow_forward",
            on_click=lambda: model.take_offer(offer),
        ).props("no-caps unelevated color=blue-9")
        button.bind_enabled_from(model, "state", backward=_idle)
        button.mark("continue-without-context")
        ui.label(offer.request).classes("font-mono text-sm text-gray-800").mark("continue-request")


def _link_account(model: AgentChatModel, offer: Offer) -> None:
    button = ui.button(offer.label, icon="link", on_click=lambda: model.take_offer(offer))
    button.props("no-caps unelevated color=blue-9").mark("link-account")
    button.bind_enabled_from(model, "state", backward=_idle)


def offer_buttons(model: AgentChatModel, message: ChatMessage) -> ui.element:
    def build(offers: list[Offer]) -> None:
        choices = [o for o in offers if o.kind not in ("without_context", "link_account")]
        if choices:
            _choices(model, choices)
        for offer in offers:
            if offer.kind == "without_context":
                _without_context(model, offer)
            elif offer.kind == "link_account":
                _link_account(model, offer)

    return live_area(message, "offers", build).mark("offers")
