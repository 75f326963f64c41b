"""What a tool leaves behind for its undo, and what an undo reads back.

An undoable tool, once its write is done, sets ``deps.undo`` to an :class:`UndoPlan`:
how to invert what it did (``kind`` names the inverse, ``inverse`` holds what it needs),
what the objects it touched look like right after the write (``fingerprint``: compared
before the undo runs, so someone's later edit is never overwritten silently) and what the
undo's card lists (``summary``). The tool node stores it (``app.agent.undo``) and puts the
``undo`` offer on the call's result. The undo tool reads it back as an :class:`UndoView`
and hands it to the :class:`Inverse` of the tool that made it (the tool's ``inverse``,
declared with its implementation: ``@runs.implements(spec, inverse=...)``), when that
inverse is of the change's ``kind``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class UndoPlan:
    kind: str
    inverse: dict[str, Any]
    fingerprint: dict[str, Any] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)
    env_id: str | None = None


@dataclass(frozen=True)
class UndoView:
    """One stored undoable change, as an inverse reads it (plain data, no ORM row)."""

    undo_id: str
    kind: str
    tool_name: str
    tool_args: dict[str, Any]
    env_id: str | None
    description: str
    inverse: dict[str, Any]
    fingerprint: dict[str, Any]
    summary: dict[str, Any]
    user_id: str
    created_at: str
    expires_at: str
    audit_id: str | None = None
    call_id: str = ""


@dataclass(frozen=True)
class Undone:
    """Set on ``deps.undone`` by the undo tool once it undid a change: the tool node
    writes the ``undone`` audit row that links the undo to the change."""

    change: UndoView


#: async (change, deps) -> what changed since the write, in words (empty: nothing)
Drift = Callable[[UndoView, Any], Awaitable[list[str]]]
#: async (change, deps) -> what the undo did (the result's facts)
Run = Callable[[UndoView, Any], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class Inverse:
    """How one kind of change is undone: its drift check and its run (``kind``: the
    :class:`UndoPlan` kind it undoes)."""

    kind: str
    drift: Drift
    run: Run
    #: the undo ends a maintenance window, so it runs during one
    ends_window: bool = False
