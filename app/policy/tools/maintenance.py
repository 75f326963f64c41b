"""Maintenance tools' specs: open and close a maintenance window on an environment.
(Implementations: ``app/agent/tools/maintenance.py``.)

While a window is active the tool seam refuses every write tool aimed at that
environment (reason ``maintenance``), except these two (``maintenance_exempt``).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from app.policy.catalog import CardLine, Phrase
from app.policy.tools.base import EnvArgs, Ru, arg
from app.policy.tools.declare import SpecFamily
from app.vocab import Lang

family = SpecFamily("maintenance")
#: Both tools write a window's row here (not Superset) and run during a window.
window_spec = partial(
    family.spec, risk="write", maintenance_exempt=True, open_world=False, undo="undoable"
)  # (undone by the inverse: a window started is ended, one ended is opened again)


class StartMaintenanceArgs(EnvArgs):
    reason: str = arg(
        "Why: shown to people who hit the window.",
        Ru("Причина", "Зачем окно: это увидят те, кто в него попадёт."),
        default="",
    )
    duration_minutes: int | None = arg(
        "Window length in minutes; omit for open-ended.",
        Ru("Длительность, мин", "Длина окна в минутах; пусто — без срока."),
        default=None,
        ge=1,
        le=10080,
    )


def _window(args: Mapping[str, Any], lang: Lang) -> dict[str, str]:
    minutes, reason = args.get("duration_minutes"), " ".join(str(args.get("reason") or "").split())
    unit = "мин" if lang == "ru" else "min"
    span = (" на " if lang == "ru" else " for ") + f"{minutes} {unit}" if minutes else ""
    return {"span": span, "why": f": {reason[:79]}" if reason else ""}


start_maintenance = window_spec(
    "start_maintenance",
    args=StartMaintenanceArgs,
    description="""Opens a maintenance window on an environment: write tools aimed at it are
    refused until it ends (after duration_minutes, or when end_maintenance is called). Use
    before planned work. Needs confirmation. Returns the window's start, end and reason.""",
    can=Phrase("start a maintenance window", "включить режим обслуживания"),
    example=Phrase(
        "Put staging into maintenance for an hour", "Включи режим обслуживания на staging на час"
    ),
    card=CardLine(
        en="Start maintenance on {env}{span}{why}",
        ru="Начать обслуживание {env}{span}{why}",
        values=_window,
    ),
)

end_maintenance = window_spec(
    "end_maintenance",
    args=EnvArgs,
    description="""Closes the maintenance window of an environment so changes are allowed
    again. Use when planned work is done. Needs confirmation. Returns the closed window.""",
    can=Phrase("end a maintenance window", "завершить режим обслуживания"),
    example=Phrase("End maintenance on staging", "Заверши обслуживание на staging"),
    card=CardLine(en="End maintenance on {env}", ru="Завершить обслуживание {env}"),
)

SPECS = family.specs
