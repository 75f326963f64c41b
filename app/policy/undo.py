"""What a confirmation card says about undoing the call, before the person confirms.

A spec declares whether what its calls change can be undone (``ToolSpec.undo``:
``undoable`` or ``final``; None for a read). The card of a call that changes something
says "Can be undone for N days" (the retention setting) or "This cannot be undone"; a
call rated a read (a ``SELECT`` through the SQL tool) says nothing. Pure: the guard adds
:func:`undo_note` to the card's data (``ConfirmMetadataV2.undo`` / ``undo_days``).
"""

from __future__ import annotations

from typing import Any

from app.policy.toolspec import ToolSpec


def undo_note(spec: ToolSpec | None, risk: str, days: int) -> dict[str, Any]:
    """The card's ``undo`` and ``undo_days`` for a call of ``spec`` rated ``risk``:
    nothing for a read (or an unknown tool), else the spec's word (``final``: 0 days)."""
    if spec is None or risk == "read" or spec.undo is None:
        return {}
    undoable = spec.undo == "undoable"
    return {"undo": spec.undo, "undo_days": max(1, days) if undoable else 0}
