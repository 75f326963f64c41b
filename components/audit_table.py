"""The audit log's table: one row per decision; a row with arguments unfolds (its button,
or a click on the row) into a readable name/value table of them, and its conversation is a
link (``conv_link``: the chat for the viewer's own, else that conversation's audit trail).

Every value reaches the page through Vue's ``{{ }}`` (text, never markup); the links are
built by the server (``app.pages.audit_rows``), never taken from a row's data.
"""

from __future__ import annotations

import html
from typing import Any

from nicegui import ui

from app.i18n import t

#: the columns the table shows (the arguments unfold below their row instead)
SHOWN = (
    "ts", "user", "role", "kind", "tool", "env", "decision", "reason", "duration_ms",
    "channel", "client", "conv_id",
)  # fmt: skip

HEADER = (
    '<q-tr :props="props"><q-th auto-width />'
    '<q-th v-for="col in props.cols" :key="col.name" :props="props">{{ col.label }}</q-th>'
    "</q-tr>"
)


def _js(text: str) -> str:
    """A catalog sentence as a JavaScript string inside a double-quoted attribute."""
    quoted = text.replace("\\", "\\\\").replace("'", "\\'")
    return "'" + html.escape(quoted, quote=True) + "'"


def _body(lang: str) -> str:
    unfold, fold = (_js(t(k, lang)) for k in ("audit_show_args", "audit_hide_args"))
    conversation = _js(t("audit_open_conversation", lang))
    return (
        '<q-tr :props="props" data-audit-row>'
        '<q-td auto-width><q-btn v-if="props.row.arg_rows.length" size="sm" flat round dense '
        ":icon=\"props.expand ? 'expand_less' : 'expand_more'\" "
        f':aria-label="props.expand ? {fold} : {unfold}" data-audit-unfold '
        '@click="props.expand = !props.expand" /></q-td>'
        '<q-td v-for="col in props.cols" :key="col.name" :props="props">'
        '<a v-if="col.name === \'conv_id\' && props.row.conv_link" :href="props.row.conv_link" '
        f":title=\"{conversation} + ': ' + col.value\" data-audit-conversation "
        'class="text-blue-700 underline font-mono">'
        "{{ col.value.length > 10 ? col.value.slice(0, 8) + '…' : col.value }}</a>"
        "<span v-else>{{ col.value }}</span></q-td>"
        "</q-tr>"
        '<q-tr v-if="props.expand" :props="props" data-audit-args>'
        '<q-td colspan="100%"><table class="audit-args text-xs">'
        '<tr v-for="a in props.row.arg_rows" :key="a.name">'
        '<th class="text-left align-top pr-4 font-mono">{{ a.name }}</th>'
        '<td><pre class="whitespace-pre-wrap m-0 font-mono">{{ a.value }}</pre></td></tr>'
        "</table></q-td></q-tr>"
    )


def audit_table(lang: str) -> ui.table:
    """The table, empty; the page sets its rows."""
    columns: list[dict[str, Any]] = [
        {"name": c, "label": c, "field": c, "align": "left"} for c in SHOWN
    ]
    table = ui.table(columns=columns, rows=[], row_key="id", pagination=0)
    table.classes("w-full px-4").props("dense wrap-cells hide-pagination").mark("audit-table")
    table.add_slot("header", HEADER)
    table.add_slot("body", _body(lang))
    return table
