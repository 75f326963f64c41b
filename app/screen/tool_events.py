"""The tool cards' side of the StreamProcessor (:class:`ToolEvents`, mixed into
:class:`app.screen.stream.StreamProcessor`): a call's start, progress, retry, timeout and
end, each written into its card (``app.screen.items.ToolCall``). An event for a card the
page never saw start (a restored page) makes the card; a late event never rolls a finished
card back; a completed undo takes the "Undo" off the card of the change it undid.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from app.i18n import t
from app.screen.items import ChatItem, ToolCall

if TYPE_CHECKING:
    from app import events

_FINISHED = ("completed", "failed", "cancelled", "timeout")


class ToolSink(Protocol):
    """What the tool cards need of the screen model."""

    items: list[ChatItem]

    @property
    def lang(self) -> str: ...

    def add_item(self, item: ChatItem) -> ChatItem: ...
    def tool_call(self, call_id: str) -> ToolCall | None: ...
    def set_step(self, step: str) -> None: ...
    def note_call_cancelled(self) -> None: ...


class ToolEvents:
    sink: ToolSink
    if TYPE_CHECKING:  # the processor's: the streamed answer is complete

        def _close_open(self) -> None: ...

    def _on_tool_start(self, ev: events.ToolStartEvent) -> None:
        self._close_open()
        self.sink.set_step("tools")
        call = self.sink.tool_call(ev.call_id)
        if call is not None:  # a resumed call re-announced after confirmation
            call.status = "executing"
            call.refresh_actions()
            return
        self.sink.add_item(
            ToolCall(
                call_id=ev.call_id,
                tool_name=ev.tool_name,
                tool_args=dict(ev.tool_args),
                is_write_tool=ev.is_write_tool,
                timeout_s=ev.timeout_s,
                task_id=ev.task_id,
            )
        )

    def _call(self, call_id: str, tool_name: str) -> ToolCall:
        call = self.sink.tool_call(call_id)
        if call is None:  # an event for a call whose start we missed (restored page)
            call = ToolCall(call_id=call_id, tool_name=tool_name)
            self.sink.add_item(call)
        return call

    def _on_tool_progress(self, ev: events.ToolProgressEvent) -> None:
        call = self._call(ev.call_id, ev.tool_name)
        if call.status in _FINISHED:
            return  # a late progress report never rolls a finished card back
        call.progress = min(1.0, max(0.0, ev.step / max(1, ev.total)))
        call.progress_message = ev.message
        call.task_id = ev.task_id or call.task_id

    def _on_tool_retry(self, ev: events.ToolRetryEvent) -> None:
        call = self._call(ev.call_id, ev.tool_name)
        call.retry_count = ev.attempt
        call.max_retries = ev.max_retries
        call.error = ev.error
        call.status = "retrying"  # last: the card's status label is bound to it
        call.refresh_actions()

    def _on_tool_timeout(self, ev: events.ToolTimeoutEvent) -> None:
        call = self._call(ev.call_id, ev.tool_name)
        call.retryable = ev.retryable
        call.status_unknown = ev.status_unknown
        call.is_write_tool = call.is_write_tool or ev.status_unknown
        lang, unknown = self.sink.lang, ev.status_unknown  # the page's words, not the server's
        wait = t("tool_no_answer", lang, s=f"{ev.timeout_s:g}")
        call.error = t("status_unknown", lang) if unknown else wait
        call.offers = list(ev.offers)  # "Check status": the core's call, typed
        call.status = "timeout"  # last: the card's icon reads status_unknown
        call.refresh_actions()

    def _on_tool_end(self, ev: events.ToolEndEvent) -> None:
        call = self._call(ev.call_id, ev.tool_name)
        if call.status == "timeout":  # the timeout already said what matters
            return
        call.view = ev.view  # before the status: the card shows it once the call is done
        call.offers = [*call.offers, *ev.offers]  # "Undo": the core's call, typed
        call.status = ev.status
        call.result = ev.result
        call.error = ev.error or ""
        call.retryable = ev.retryable
        call.goes_on = False
        if call.status == "completed":
            call.progress = 1.0 if call.progress is not None else None
            self._undone(call)
        call.refresh_actions()
        if call.status == "cancelled":
            self.sink.note_call_cancelled()  # after a Cancel: the product's own line

    def _undone(self, call: ToolCall) -> None:
        """A completed undo (another card's undo offer's call): that card offers it no more."""
        undo_id = call.tool_args.get("undo_id")
        if isinstance(undo_id, str):
            for item in self.sink.items:
                if isinstance(item, ToolCall) and item is not call:
                    item.undone(undo_id, call.tool_name)
