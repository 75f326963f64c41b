"""/approvals: the queue of calls that wait for a second person (four-eyes), in the app's
shell (its header, with the count of requests waiting for this person).

Each waiting request is shown as the card its requester confirmed — the same confirmation
card (``components.confirmation_card``, in its approver's form: Approve / Deny with an
optional reason, no Edit) on the same screen model fields: the arguments, the
environment's badge and PRODUCTION banner, the preflight diff, a dangerous call's
countdown — with who asked, when, and when it expires. The person's own requests are
listed without Approve (a second person must approve them) and can be withdrawn.

Every decision goes to the core (``app.agent.core.approvals``), which checks it as on any
door: a refusal (the person's own request, a role that may not approve, a request decided
or expired meanwhile) is shown under its card in the page's language.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from nicegui import app, ui
from starlette.requests import Request
from starlette.responses import RedirectResponse

from app.agent.core import AgentCore, Caller
from app.agent.core import approvals as queue
from app.auth import Principal
from app.errors import SsToolsError
from app.i18n import refusal_text, t
from app.pages import session
from app.pages.agent_controller import refusal_of
from app.pages.approvals_count import keep_counting
from app.pages.shell import signed_in_header
from app.parts import installed
from app.screen.approvals_queue import ApprovalsCount, request_model
from app.screen.chat_model import AgentChatModel
from app.screen.intents import Decision
from components.confirmation_card import confirmation_card
from components.prod_banner import prod_banner

log = logging.getLogger("ss_tools.pages")
PATH = "/approvals"


class RequestCard:
    """One request's card on the page: its screen model's intents (Approve / Deny) go to
    the core as this person's decision."""

    def __init__(
        self, core: AgentCore, principal: Principal, request: Mapping[str, Any], lang: str,
        counter: ApprovalsCount,
    ) -> None:  # fmt: skip
        self.core, self.principal, self.request, self.lang = core, principal, request, lang
        self.counter = counter
        self.model: AgentChatModel = request_model(request, role=principal.role, lang=lang)
        self.model.connect(self)  # type: ignore[arg-type]  # the decisions of this card only
        self.result: ui.label | None = None

    def _caller(self) -> Caller:
        return Caller(principal=self.principal, channel="page")

    def _say(self, text: str, *, problem: bool = False) -> None:
        if self.result is not None:
            self.result.set_text(text)
            self.result.classes(
                replace="text-sm " + ("text-red-800" if problem else "text-green-800")
            )

    async def decide(
        self, decision: Decision, reason: str | None, args: Mapping[str, Any] | None = None
    ) -> None:
        """Approve (the card's Confirm) or deny (its Cancel, with the typed reason)."""
        if self.model.begin_decision(decision) is None:
            return
        verdict = "approve" if decision == "confirm" else "deny"
        try:
            answer = await queue.decide(
                self.core, self._caller(), self.request["id"], verdict, reason
            )
        except SsToolsError as exc:
            error, why = refusal_of(exc)
            self.model.card_back()
            self._say(refusal_text(error, why, self.lang), problem=True)
            return
        self.model.clear_confirmation()
        outcome = answer.get("outcome") or "denied"
        self._say(
            t(f"approval_result_{outcome}", self.lang),
            problem=outcome not in ("completed", "denied"),
        )
        self.counter.count = await queue.count_waiting(self.core, self.principal)

    async def withdraw(self) -> None:
        try:
            await queue.withdraw(self.core, self._caller(), self.request["id"])
        except SsToolsError as exc:
            error, why = refusal_of(exc)
            self._say(refusal_text(error, why, self.lang), problem=True)
            return
        self._say(t("approval_status_withdrawn", self.lang))


def _requested_line(request: Mapping[str, Any], lang: str) -> str:
    def when(value: Any) -> str:
        return str(value or "—").replace("T", " ")[:16] + " UTC"

    return t(
        "approval_requested_by", lang, user=request["requester"],
        when=when(request.get("created_at")), expires=when(request.get("expires_at")),
    )  # fmt: skip


def _request_block(card: RequestCard, lang: str) -> None:
    request = card.request
    with ui.column().classes("w-full max-w-4xl mx-auto gap-0 rounded shadow bg-white") as block:
        prod_banner(card.model)
        with ui.column().classes("w-full gap-2 p-4"):
            ui.label(_requested_line(request, lang)).classes("text-sm text-gray-700").mark(
                "approval-requested-by"
            )
            if request["requester"] == card.principal.user_id:  # never approved by its requester
                ui.label(t("approval_own", lang)).classes("text-sm font-semibold").mark(
                    "approval-own"
                )
                ui.button(t("approval_withdraw", lang), icon="undo", on_click=card.withdraw).props(
                    "outline"
                ).mark("approval-withdraw")
            else:
                confirmation_card(card.model, for_approver=True)
            card.result = ui.label("").classes("text-sm").mark("approval-result")
            card.result.props('data-testid="approval-result"')
    block.props('data-testid="approval-request"').mark("approval-request")


@ui.page(PATH, title="Approvals · ss-tools agent")
async def approvals_page(request: Request, lang: str | None = None):
    parts = installed(request.app)
    user = session.current_user(parts.auth)
    if user is None:
        return RedirectResponse(session.login_url(session.request_target(request)))
    language = session.page_language(request, lang)
    core, principal = parts.core, user.principal

    def choose_language(value: str) -> None:
        app.storage.user["lang"] = value
        ui.navigate.to(PATH)

    title = t("approvals_title", language)
    counter = await signed_in_header(parts, user, language, title, choose_language)
    cards: list[RequestCard] = []
    with ui.column().classes("w-full gap-4 p-4") as root:
        try:
            rows = await queue.list_approvals(core, Caller(principal=principal, channel="page"))
        except SsToolsError as exc:
            error, why = refusal_of(exc)
            ui.label(refusal_text(error, why, language)).classes("text-red-800")
            rows = []
        if not core.rules.policy().approval.enabled:
            ui.label(t("approvals_off", language)).classes("text-gray-700").mark("approvals-off")
        elif not rows:
            ui.label(t("approvals_empty", language)).classes("text-gray-700").mark(
                "approvals-empty"
            )
        for row in rows:
            card = RequestCard(core, principal, row, language, counter)
            cards.append(card)
            _request_block(card, language)

    def tick() -> None:  # a dangerous call's countdown, on every card
        for card in cards:
            card.model.tick()

    ui.timer(parts.settings.countdown_tick_s, tick)
    keep_counting(counter, core, principal)
    root.mark("approvals-root")
    session.watch(parts.auth, request)  # a revoked session leaves the page
    return None
