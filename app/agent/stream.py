"""How events leave the graph and get their place in a stream.

* :func:`emit` — the one way a node publishes an event: the event *object* goes through
  LangGraph's custom stream to the core, in process (no dict, no JSON on the way).
* :class:`Sequencer` — stamps ``conv_id`` and the next ``seq`` on each event of one
  stream, so the page (typed events) and the SSE door (encoded events) see the same
  numbering.
* :func:`confirm_required_event` — the one builder of a ``confirm_required`` event from
  the confirm node's interrupt payload (used by the live stream and the conversation
  read model).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from langgraph.config import get_stream_writer

from app.events import BaseEvent, ConfirmMetadataV2, ConfirmRequiredEvent

E = TypeVar("E", bound=BaseEvent)


def emit(event: BaseEvent) -> None:
    """Publish ``event`` from inside a graph node (the core numbers it)."""
    get_stream_writer()(event)


class Sequencer:
    """Numbers the events of one stream: ``conv_id`` and a monotonic ``seq`` from 1.

    Each event object is fresh and owned by the stream, so it is stamped in place (no
    copy per token)."""

    __slots__ = ("conv_id", "seq")

    def __init__(self, conv_id: str) -> None:
        self.conv_id = conv_id
        self.seq = 0

    def __call__(self, event: E) -> E:
        self.seq += 1
        event.conv_id = self.conv_id
        event.seq = self.seq
        return event


def confirm_required_event(value: Mapping[str, Any], conv_id: str = "") -> ConfirmRequiredEvent:
    """The ``confirm_required`` event for one interrupt payload of the confirm node."""
    return ConfirmRequiredEvent(
        conv_id=conv_id,
        confirmation_id=value["confirmation_id"],
        call_id=value["call_id"],
        metadata=ConfirmMetadataV2.model_validate(value.get("metadata") or {}),
        countdown_s=int(value.get("countdown_s") or 0),
        expires_at=value.get("expires_at", ""),
    )
