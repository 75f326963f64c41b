"""The undo tool's spec: ``undo_change`` undoes one earlier change by its ``undo_id``.
(Implementation: ``app/agent/tools/undo.py``; what can be undone: ``docs/undo.md``.)

An undoable write (a spec with ``undo="undoable"``) gets an ``undo`` offer on its result:
a call of this tool with the change's id. The undo is a call like any other: the guard,
the confirmation (a countdown: it overwrites or deletes what is there now), a second
person where policy asks for one, and the audit. Its environment is the change's own
(the implementation's ``resolve_target``), so the card, the maintenance gate and the
banner see where it acts. It is admin-only (a delete no table opens to other roles), and
the undo itself cannot be undone.
"""

from __future__ import annotations

from app.policy.catalog import CardLine, Phrase
from app.policy.tools.base import Ru, ToolArgs, arg
from app.policy.tools.declare import SpecFamily

family = SpecFamily("undo")
UNDO_TOOL = "undo_change"


class UndoArgs(ToolArgs):
    undo_id: str = arg(
        "From the change's result.",
        Ru("Изменение", "undo_id из результата изменения, которое нужно отменить."),
        min_length=1,
        max_length=64,
        pattern=r"^[A-Za-z0-9_-]+$",
    )


undo_change = family.spec(
    UNDO_TOOL,
    args=UndoArgs,
    risk="delete",
    description="""Undoes a change the agent made, by the undo_id its result gave, unless
    the object changed since. Needs confirmation after a countdown. Returns what was
    restored or removed.""",
    can=Phrase("undo a change the agent made", "отменить изменение агента"),
    example=Phrase("Undo the last change", "Отмени последнее изменение"),
    card=CardLine(en="Undo change {undo_id} in {env}", ru="Отменить изменение {undo_id} в {env}"),
    triggers=("undo", "revert that", "отмени это", "верни как было"),
    long_task=True,
)

SPECS = family.specs
