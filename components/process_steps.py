"""Process steps: context → thinking → tools → confirmation → answer.

The current step is highlighted. The first step is called "Context" (the header's pill
already says which one: the bar does not repeat it).
"""

from __future__ import annotations

from nicegui import ui

from app.i18n import t
from app.screen.chat_model import AgentChatModel
from components.bind import bind_classes_from

STEPS = ("context", "thinking", "tools", "confirm", "answer")
ACTIVE = "bg-blue-800 text-white"  # 8.6:1
INACTIVE = "bg-gray-100 text-gray-800"  # 11:1


def process_steps(model: AgentChatModel) -> ui.element:
    with ui.row().classes("w-full items-center gap-1 text-xs").mark("process-steps") as row:
        for index, step in enumerate(STEPS):
            if index:
                ui.icon("chevron_right").classes("text-gray-400")
            chip = ui.label().classes("rounded px-2 py-0.5").mark(f"step-{step}")
            chip.set_text(t(f"step_{step}", model.lang))
            bind_classes_from(chip, model, "process_step", {step: ACTIVE}, default=INACTIVE)
    return row
