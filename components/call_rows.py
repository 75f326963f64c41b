"""The rows of a card's grid that name the call: its tool and its arguments, bound to the
model's fields, shared by the confirmation card and the card of a call waiting for a
second person."""

from __future__ import annotations

from nicegui import ui

from app.i18n import t


def call_rows(model: object, lang: str, *, tool: str, args: str, mark: str) -> None:
    """Two rows of the enclosing grid: "Tool" with ``model.<tool>`` and "Arguments" with
    ``model.<args>`` (marked ``<mark>-tool`` and ``<mark>-args``)."""
    ui.label(t("tool", lang)).classes("text-gray-600")
    ui.label().classes("font-mono").bind_text_from(model, tool).mark(f"{mark}-tool")
    ui.label(t("arguments", lang)).classes("text-gray-600")
    arguments = ui.label().classes("font-mono whitespace-pre-wrap").mark(f"{mark}-args")
    arguments.bind_text_from(model, args)
