"""A health view: the dashboard (linked), its verdict, an ECharts bar chart of its charts
by status (ok / failing / slow / stale, plus empty and unchecked when there are any), and
below it what needs attention, failing first, each with its reason and a link."""

from __future__ import annotations

from typing import Any

from nicegui import ui

from app.i18n import t
from app.screen.views import HEALTH_STATUSES, HealthView
from components.results.linked_list import title_link
from components.tones import soft

MAIN = ("ok", "failing", "slow", "stale")
COLOURS = {
    "ok": "#15803d",
    "failing": "#b91c1c",
    "slow": "#b45309",
    "stale": "#4b5563",
    "empty": "#1d4ed8",
    "unchecked": "#6b7280",
}
VERDICT_TONES = {"ok": soft("green"), "warning": soft("amber"), "broken": soft("red")}
STATUS_TONES = {"failing": soft("red"), "slow": soft("amber"), "stale": "bg-gray-200 text-gray-900"}


def shown_statuses(view: HealthView) -> list[str]:
    return [s for s in HEALTH_STATUSES if s in MAIN or view.counts.get(s)]


def chart_options(view: HealthView, lang: str) -> dict[str, Any]:
    statuses = shown_statuses(view)
    return {
        "animation": False,
        "grid": {"left": 8, "right": 16, "top": 16, "bottom": 8, "containLabel": True},
        "tooltip": {"trigger": "axis"},
        "xAxis": {
            "type": "category",
            "data": [t(f"health_{s}", lang) for s in statuses],
            "axisLabel": {"color": "#1f2937"},
        },
        "yAxis": {"type": "value", "minInterval": 1, "axisLabel": {"color": "#1f2937"}},
        "series": [
            {
                "type": "bar",
                "barMaxWidth": 36,
                "label": {"show": True, "position": "top", "color": "#111827"},
                "data": [
                    {"value": view.counts.get(s, 0), "itemStyle": {"color": COLOURS[s]}}
                    for s in statuses
                ],
            }
        ],
    }


def health_view(view: HealthView, lang: str) -> ui.element:
    with ui.column().classes("w-full gap-2") as box:
        with ui.row().classes("items-center gap-2"):
            title_link(view.dashboard.title, view.dashboard.url)
            verdict = t(f"verdict_{view.verdict}", lang) if view.verdict in VERDICT_TONES else ""
            if verdict:
                tone = VERDICT_TONES[view.verdict]
                ui.label(verdict).classes(f"rounded px-2 text-sm {tone}").mark("health-verdict")
        ui.label(t("health_title", lang)).classes("text-sm text-gray-700")
        chart = ui.echart(chart_options(view, lang)).classes("w-full h-48")
        chart.props('data-testid="health-chart"').mark("health-chart")
        if view.problems:
            ui.label(t("health_problems", lang)).classes("text-sm font-medium")
            with ui.element("ul").classes("w-full").mark("health-problems"):
                for problem in view.problems:
                    with ui.element("li"), ui.row().classes("items-baseline gap-2 wrap"):
                        tone = STATUS_TONES.get(problem.status, soft("gray"))
                        ui.label(t(f"health_{problem.status}", lang)).classes(
                            f"rounded px-1.5 text-xs {tone}"
                        )
                        title_link(problem.name, problem.url)
                        if problem.reason:
                            ui.label(problem.reason).classes("text-sm text-gray-800")
    return box
