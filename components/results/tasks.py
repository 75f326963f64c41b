"""A tasks view: each task with its state, a progress bar while it runs, and its error."""

from __future__ import annotations

from nicegui import ui

from app.i18n import t
from app.screen.views import TasksView
from components.results.format import format_cell, word
from components.tones import soft

# the task store's states (app.store.tasks): queued -> running -> succeeded | failed,
# queued | running -> interrupted
STATE_COLOURS = {
    "queued": "gray",
    "running": "blue",
    "succeeded": "green",
    "failed": "red",
    "interrupted": "amber",
}
UNFINISHED = ("queued", "running")


def state_text(status: str, lang: str) -> str:
    return word(f"task_{status}", lang, status)


def tasks_view(view: TasksView, lang: str) -> ui.element:
    with ui.column().classes("w-full gap-1").mark("result-tasks") as box:
        if not view.tasks:
            ui.label(t("no_tasks", lang)).classes("text-sm text-gray-700")
        for task in view.tasks:
            with ui.row().classes("w-full items-center gap-2 wrap text-sm"):
                tone = soft(STATE_COLOURS.get(task.status, "gray"))
                ui.label(state_text(task.status, lang)).classes(f"rounded px-1.5 {tone}")
                ui.label(task.kind).classes("font-medium")
                ui.label(task.task_id[:8]).classes("font-mono text-gray-700").tooltip(task.task_id)
                if task.total:
                    ui.label(f"{task.step or 0}/{task.total}").classes("text-gray-700")
                if task.env_id:
                    ui.label(task.env_id).classes("text-gray-700")
                if task.updated_at:
                    ui.label(format_cell(task.updated_at, lang)).classes("text-gray-700")
            if task.total and task.status in UNFINISHED:
                ui.linear_progress(value=(task.step or 0) / task.total, show_value=False).props(
                    "rounded color=blue-8"
                )
            if task.message and task.status in UNFINISHED:  # its progress, while it runs
                ui.label(task.message).classes("text-xs text-gray-700")
            if task.error:
                ui.label(task.error).classes("text-sm text-red-800")
    return box
