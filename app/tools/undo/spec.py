"""The undo tool's spec: ``undo_change`` undoes one earlier change by its ``undo_id``.
(Implementation: ``run.py`` beside it; what can be undone: ``docs/undo.md``.)

An undoable write (a spec with ``undo="undoable"``) gets an ``undo`` offer on its result:
a call of this tool with the change's id. The undo is a call like any other: the guard,
the confirmation (a countdown: it overwrites or deletes what is there now), a second
person where policy asks for one, and the audit. Its environment is the change's own
(the implementation's ``resolve_target``), so the card, the maintenance gate and the
banner see where it acts. It is admin-only (it overwrites or deletes what is on a target
now), fits no page context, and the undo itself cannot be undone. It is "the undo tool"
(``serves``): the core's undo offers call it.
"""

from __future__ import annotations

from app.tools.args import Ru, ToolArgs, arg
from app.tools.declare import ADMINS, Family

family = Family("undo")


class UndoArgs(ToolArgs):
    undo_id: str = arg(
        "From the change's result.",
        Ru("Изменение", "undo_id из результата изменения, которое нужно отменить."),
        min_length=1,
        max_length=64,
        pattern=r"^[A-Za-z0-9_-]+$",
    )


undo_change = family.spec(
    "undo_change", UndoArgs, "delete", roles=ADMINS, serves="undo", long_task=True,
    triggers=("undo", "revert that", "отмени это", "верни как было"),
    description="""Undoes a change the agent made, by the undo_id its result gave, unless
    the object changed since. Needs confirmation after a countdown. Returns what was
    restored or removed.""",
    en=("undo a change the agent made", "Undo the last change", "Undo change {undo_id} in {env}"),
    ru=("отменить изменение агента", "Отмени последнее изменение",
        "Отменить изменение {undo_id} в {env}"),
)  # fmt: skip
