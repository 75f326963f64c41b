"""Maintenance tools' specs: open and close a maintenance window on an environment.
(Implementations: ``run.py`` beside it.)

While a window is active the tool seam refuses every write tool aimed at that
environment (reason ``maintenance``), except these two (``maintenance_exempt``). Both
are admin-only and fit no page context.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from app.tools.args import EnvArgs, Ru, arg, optional
from app.tools.declare import ADMINS, Family
from app.vocab import Lang

family = Family("maintenance")
#: Both tools write a window's row here (not Superset) and run during a window; each is
#: undone by the other's work (a window started is ended, one ended is opened again).
window_spec = partial(
    family.spec, risk="write", roles=ADMINS, maintenance_exempt=True, open_world=False,
    undo="undoable",
)  # fmt: skip


class StartMaintenanceArgs(EnvArgs):
    reason: str = arg(
        "Why: shown to people who hit the window.",
        Ru("Причина", "Зачем окно: это увидят те, кто в него попадёт."),
        default="",
    )
    duration_minutes: int | None = optional(
        "Window length in minutes; omit for open-ended.",
        Ru("Длительность, мин", "Длина окна в минутах; пусто — без срока."),
        ge=1,
        le=10080,
    )


def _window(args: Mapping[str, Any], lang: Lang) -> dict[str, str]:
    minutes, reason = args.get("duration_minutes"), " ".join(str(args.get("reason") or "").split())
    unit = "мин" if lang == "ru" else "min"
    span = (" на " if lang == "ru" else " for ") + f"{minutes} {unit}" if minutes else ""
    return {"span": span, "why": f": {reason[:79]}" if reason else ""}


start_maintenance = window_spec(
    "start_maintenance", StartMaintenanceArgs, card_values=_window,
    description="""Opens a maintenance window on an environment: write tools aimed at it are
    refused until it ends (after duration_minutes, or when end_maintenance is called). Use
    before planned work. Needs confirmation. Returns the window's start, end and reason.""",
    en=("start a maintenance window", "Put staging into maintenance for an hour",
        "Start maintenance on {env}{span}{why}"),
    ru=("включить режим обслуживания", "Включи режим обслуживания на staging на час",
        "Начать обслуживание {env}{span}{why}"),
)  # fmt: skip

end_maintenance = window_spec(
    "end_maintenance", EnvArgs,
    description="""Closes the maintenance window of an environment so changes are allowed
    again. Use when planned work is done. Needs confirmation. Returns the closed window.""",
    en=("end a maintenance window", "End maintenance on staging", "End maintenance on {env}"),
    ru=("завершить режим обслуживания", "Заверши обслуживание на staging",
        "Завершить обслуживание {env}"),
)  # fmt: skip
