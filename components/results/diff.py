"""A diff view: each object a migration, deploy or restore creates, overwrites or keeps on
its target, as a table — in the tool card after the run, and in the confirmation card
before it (``preflight_diff``), so a person confirms what they can see."""

from __future__ import annotations

from typing import Any

from nicegui import ui

from app.i18n import t
from app.screen.chat_model import AgentChatModel
from app.screen.views import DiffView, preflight_view
from components.results.format import word
from components.results.live import live_area
from components.tones import soft

ACTION_COLOURS = {
    "create": "green",
    "overwrite": "amber",
    "skip": "gray",
    "keep": "gray",
    "map": "blue",
    "restore": "blue",  # an undo: what it brings back
    "delete": "red",  # an undo: what it removes
}


def action_text(action: str, lang: str) -> str:
    return word(f"action_{action}", lang, action)


def object_text(kind: str, lang: str) -> str:
    return word(f"object_{kind}s", lang, kind)


def diff_view(view: DiffView, lang: str, *, before: bool = False) -> ui.element:
    with ui.column().classes("w-full gap-1").mark("result-diff") as box:
        route = " → ".join(e for e in (view.source_env, view.target_env) if e)
        title = t("diff_title" if before else "diff_done_title", lang)
        ui.label(f"{title}{': ' + route if route else ''}").classes("text-sm font-medium")
        if view.errors:
            ui.label(t("diff_blocked", lang)).classes("text-sm font-medium text-red-800")
            for error in view.errors:
                ui.label(error).classes("text-sm text-red-800")
        with ui.element("table").classes("diff-table w-full text-sm").mark("diff-table"):
            with ui.element("thead"), ui.element("tr"):
                for key in ("object", "type", "action", "target"):
                    with ui.element("th").classes("text-left font-medium text-gray-700"):
                        ui.label(t(f"col_{key}", lang))
            with ui.element("tbody"):
                for row in view.rows:
                    _row(row.name, object_text(row.object_type, lang), row.action, row.target,
                         lang)  # fmt: skip
        for kind, actions in view.counts.items():
            parts = ", ".join(f"{n} × {action_text(a, lang)}" for a, n in actions.items())
            ui.label(f"{object_text(kind, lang)}: {parts}").classes("text-sm text-gray-700")
    return box


def _row(name: str, kind: str, action: str, target: Any, lang: str) -> None:
    with ui.element("tr"):
        with ui.element("td"):
            ui.label(name)
        with ui.element("td"):
            ui.label(kind).classes("text-gray-700")
        with ui.element("td"):
            tone = soft(ACTION_COLOURS.get(action, "gray"))
            ui.label(action_text(action, lang)).classes(f"rounded px-1.5 inline-block {tone}")
        with ui.element("td"):
            ui.label(str(target or "—")).classes("text-gray-700")


def preflight_diff(model: AgentChatModel) -> ui.element:
    """The pending confirmation's preflight as a diff table (for the confirmation card)."""

    def build(pending: Any) -> None:
        details = pending.metadata.details if pending is not None else None
        view = preflight_view(details)
        if view is not None and view.rows:
            diff_view(view, model.lang, before=True)

    return live_area(model, "pending_confirmation", build).mark("preflight-diff")
