"""A table view: Quasar's table (a real ``<table>``), sortable columns on the raw values,
numbers shown in the page's language, the row count, whether the result was truncated,
and a CSV download. URL columns are links into the environment's Superset (new tab)."""

from __future__ import annotations

import json

from nicegui import ui

from app.i18n import key_label, t
from app.screen.views import TableView
from components.results.format import csv_bytes, format_cell, word

PAGE_ROWS = 10
_LINK_CELL = (
    '<q-td :props="props"><a v-if="String(props.value).startsWith(\'http\')" :href="props.value"'
    ' target="_blank" rel="noopener noreferrer" class="text-blue-800 underline">'
    "{{ props.value }}</a><span v-else>{{ props.value }}</span></q-td>"
)


def headers(view: TableView, lang: str) -> list[str]:
    return [c.label if c.label is not None else key_label(c.key, lang) for c in view.columns]


def table_rows(view: TableView, lang: str) -> list[dict[str, object]]:
    """Quasar rows: ``c<i>`` the raw value (sorting), ``c<i>__shown`` the display text."""
    rows = []
    for index, row in enumerate(view.rows):
        entry: dict[str, object] = {"_row": index}
        for i, value in enumerate(row):
            entry[f"c{i}"] = value
            shown = format_cell(value, lang)
            if view.columns[i].words:  # a code ("warning", "read"): its word, where there is one
                shown = word(f"{view.columns[i].key}_{value}", lang, shown)
            entry[f"c{i}__shown"] = shown
        rows.append(entry)
    return rows


def count_text(view: TableView, lang: str) -> str:
    n = view.row_count or len(view.rows)
    return t("rows_truncated" if view.truncated else "rows_shown", lang, n=n)


def table_view(view: TableView, lang: str) -> ui.element:
    titles = headers(view, lang)
    columns = [
        {
            "name": f"c{i}",
            "label": titles[i],
            "field": f"c{i}",
            "sortable": True,
            "align": "right" if col.numeric else "left",
            ":format": f"(value, row) => row['c{i}__shown']",
        }
        for i, col in enumerate(view.columns)
    ]
    with ui.column().classes("w-full gap-1") as box:
        with ui.row().classes("w-full items-center gap-2 text-sm text-gray-700"):
            ui.label(count_text(view, lang)).mark("result-row-count")
            if view.truncated:
                ui.icon("content_cut").classes("text-amber-800").tooltip(
                    t("rows_truncated", lang, n=view.row_count)
                )
            ui.space()
            data = csv_bytes(titles, view.rows)
            ui.button(
                t("download_csv", lang),
                icon="download",
                on_click=lambda: ui.download.content(data, f"{view.csv_name}.csv", "text/csv"),
            ).props(f'flat dense no-caps aria-label="{t("download_csv_hint", lang)}"').mark(
                "download-csv"
            )
        if not view.rows:
            ui.label(t("no_rows", lang)).classes("text-sm text-gray-700")
            return box
        table = ui.table(
            columns=columns,
            rows=table_rows(view, lang),
            row_key="_row",
            pagination={"rowsPerPage": PAGE_ROWS} if len(view.rows) > PAGE_ROWS else None,
        )
        table.classes("w-full result-table").props("dense flat bordered wrap-cells")
        # Quasar's own pagination words, in the page's language (not its English defaults)
        table.props["rows-per-page-label"] = t("rows_per_page", lang)
        of = json.dumps(f" {t('page_of', lang)} ", ensure_ascii=False)
        table.props[":pagination-label"] = (
            f"(first, last, total) => first + '–' + last + {of} + total"
        )
        table.props('data-testid="result-table"').mark("result-table")
        for i, col in enumerate(view.columns):
            if col.link:
                table.add_slot(f"body-cell-c{i}", _LINK_CELL)
    return box
