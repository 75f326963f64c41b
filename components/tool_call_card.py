"""One tool call in the chat. The outcome (running, done, failed, cancelled, status
unknown) is the card's icon and colour. While it runs the card shows its arguments and, for
a long task, a progress bar; once done it folds to a one-line header (icon, tool, status,
the result in a few words) with the result's view still shown below it; the arguments
unfold from the header. Retry only for read tools or transient errors; a write timeout
offers "Check status" (the task by its id); a write that can be undone offers "Undo"
(the core's ``undo`` offer: the undo's own confirmation card follows), with its last
moment as the tooltip."""

from __future__ import annotations

from nicegui import binding, ui

from app.i18n import t
from app.screen.chat_model import AgentChatModel
from app.screen.items import ToolCall
from components.bind import bind_classes_from
from components.results import result_view, summary
from components.results.live import live_area

RUNNING = ("executing", "retrying")
ICONS = {
    "executing": "sync",
    "retrying": "replay",
    "completed": "check_circle",
    "failed": "error",
    "timeout": "timer_off",
    "unknown": "help",
    "cancelled": "cancel",
}
ICON_TONES = {
    "executing": "text-blue-800 animate-spin",
    "retrying": "text-amber-800",
    "completed": "text-green-800",
    "failed": "text-red-700",
    "timeout": "text-red-700",
    "unknown": "text-amber-800",
    "cancelled": "text-gray-600",
}
TONES = {
    "executing": "border-blue-400",
    "retrying": "border-amber-500",
    "completed": "border-green-600",
    "failed": "border-red-600",
    "timeout": "border-red-600",
    "unknown": "border-amber-500",
    "cancelled": "border-gray-400",
}


def outcome(call: ToolCall) -> str:
    """The status the card shows: a write that timed out is "status unknown"."""
    return "unknown" if call.status == "timeout" and call.status_unknown else call.status


def shows_progress(call: ToolCall) -> bool:
    """A long task's bar shows while it runs, and where it stopped if it did not finish."""
    return call.progress is not None and call.status != "completed"


def status_text(call: ToolCall, lang: str) -> str:
    if call.status == "retrying":
        return t("tool_retrying", lang, attempt=call.retry_count)
    return t(f"tool_{call.status}", lang)


class _Fold:
    """The card's arguments: open while the call runs, folded once it is done; the header's
    button unfolds them again."""

    def __init__(self, box: ui.element) -> None:
        self.box = box
        self._status: str | None = None

    @property
    def status(self) -> str | None:
        return self._status

    @status.setter
    def status(self, status: str | None) -> None:
        self._status = status
        self.box.set_visibility(status in RUNNING)

    def toggle(self) -> None:
        self.box.set_visibility(not self.box.visible)


def tool_call_card(model: AgentChatModel, call: ToolCall) -> ui.card:
    lang = model.lang
    card = ui.card().classes("w-full border-l-4 py-2 gap-1 tool-card").mark("tool-card")
    bind_classes_from(card, call, "status", TONES, backward=lambda _s: outcome(call))
    with card:
        with ui.row().classes("w-full items-center gap-2 no-wrap"):
            icon = ui.icon("sync").classes("text-xl").mark("tool-icon")
            icon.bind_name_from(call, "status", backward=lambda _s: ICONS.get(outcome(call)))
            bind_classes_from(icon, call, "status", ICON_TONES, backward=lambda _s: outcome(call))
            ui.label(call.tool_name).classes("font-mono font-semibold").mark("tool-name")
            ui.label().classes("text-sm text-gray-700").bind_text_from(
                call, "status", backward=lambda _s: status_text(call, lang)
            ).mark("tool-status")
            ui.label().classes("text-sm text-gray-800 truncate").bind_text_from(
                call, "view", backward=lambda v: summary(v, lang)
            ).mark("tool-summary")
            ui.space()
            ui.button(t("retry", lang), icon="replay", on_click=lambda: model.retry(call)).props(
                "flat dense no-caps"
            ).bind_visibility_from(call, "can_retry").mark("retry-button")
            ui.button(
                t("check_status", lang),
                icon="fact_check",
                on_click=lambda: model.check_status(call),
            ).props("flat dense no-caps").bind_visibility_from(call, "can_check_status").mark(
                "check-status-button"
            )
            undo = ui.button(t("undo", lang), icon="undo", on_click=lambda: _undo(model, call))
            undo.props("flat dense no-caps color=red-9").bind_visibility_from(call, "can_undo")
            undo.mark("undo-button")
            offer = call.undo_offer
            if offer is not None and offer.expires_at:  # (a live call's offer comes later)
                undo.tooltip(t("undo_until", lang, until=offer.expires_at.replace("T", " ")))
            unfold = ui.button(icon="tune").props(
                f'flat round dense size=sm aria-label="{t("arguments_short", lang)}"'
            )
            unfold.tooltip(t("arguments_short", lang)).mark("tool-args-toggle")
        args = ui.label(call.args_text).classes(
            "font-mono text-xs text-gray-700 whitespace-pre-wrap"
        )
        fold = _Fold(args.mark("tool-args"))
        binding.bind_from(fold, "status", call, "status")
        unfold.on_click(fold.toggle)
        card._ss_fold = fold  # type: ignore[attr-defined]  # keep the proxy alive
        with ui.column().classes("w-full gap-0") as progress:  # a long task, while it runs
            ui.linear_progress(show_value=False).props(
                "animation-speed=300 color=blue-8"
            ).bind_value_from(call, "progress", backward=lambda p: p or 0.0).mark("tool-progress")
            ui.label().classes("text-xs text-gray-700").bind_text_from(call, "progress_message")
        for field in ("progress", "status"):
            progress.bind_visibility_from(call, field, backward=lambda _v: shows_progress(call))
        goes_on = ui.label(t("tool_goes_on", lang)).classes("text-sm text-amber-800")
        goes_on.bind_visibility_from(call, "goes_on").mark("tool-goes-on")
        ui.label().classes("text-sm text-red-800").bind_text_from(
            call, "error"
        ).bind_visibility_from(call, "error", backward=bool).mark("tool-error")
        live_area(call, "view", lambda view: result_view(view, lang)).mark("tool-result")
    return card


async def _undo(model: AgentChatModel, call: ToolCall) -> None:
    """The card's "Undo": the core's undo offer for that call (its own card follows)."""
    offer = call.undo_offer
    if offer is not None and call.can_undo:
        await model.take_offer(offer)
