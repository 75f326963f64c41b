"""A result's view within :class:`app.caps.ResultCaps`, and the sentence that says what
was left out.

:func:`cap_view` is the tool node's last step before a view leaves it (the page, the HTTP
events, the MCP door and the conversation's checkpoint all get this view): a table keeps
its first rows, each value within ``max_cell_chars``, all within ``max_bytes`` of JSON; a
list view keeps its first items; a text view its head. What was left out is added to the
view's :class:`~app.views.models.Cut` (a tool may have cut its result already: the SQL
tool does, before its result is summarised for the model). :func:`cut_sentence` says it
in the page's language, from the catalog.
"""

from __future__ import annotations

from typing import Any

from app.caps import CUT, ResultCaps, cap_rows, json_size
from app.i18n import t
from app.views.models import Cut, TableView, TextView, ToolView

#: The list each list-like view holds its items in.
_ITEMS = {
    "linked_list": "items",
    "health": "problems",
    "facts": "facts",
    "tasks": "tasks",
    "diff": "rows",
}


def _with(view: Any, cut: Cut, **update: Any) -> Any:
    total = cut if view.cut is None else view.cut + cut
    return view.model_copy(update={**update, "cut": total})


#: the largest ``cut`` a view may carry: its room is kept free
_WIDEST = Cut(rows=10**12, cells=10**12, cell_chars=10**12, chars=10**12)


def _room(view: Any, field: str, caps: ResultCaps) -> int:
    """Bytes left for ``field`` once the rest of the view (and its cut) is counted."""
    empty = [] if field != "text" else ""
    rest = view.model_copy(update={field: empty, "cut": _WIDEST})
    return caps.max_bytes - json_size(rest.model_dump(mode="json"))


def _table(view: TableView, caps: ResultCaps) -> TableView:
    kept = cap_rows(view.rows, caps, room=_room(view, "rows", caps))
    if not kept.cut:
        return view
    chars = caps.max_cell_chars if kept.cells_shortened else 0
    cut = Cut(rows=kept.rows_left_out, cells=kept.cells_shortened, cell_chars=chars)
    return _with(view, cut, rows=kept.rows)


def _text(view: TextView, caps: ResultCaps) -> TextView:
    room = _room(view, "text", caps) - len(CUT.encode())
    if json_size(view.text) <= room:
        return view
    head = view.text.encode("utf-8")[: max(room, 0)].decode("utf-8", "ignore")
    while head and (size := json_size(head)) > room:  # JSON escapes cost more bytes
        head = head[: min(len(head) - 1, len(head) * room // size)]
    return _with(view, Cut(chars=len(view.text) - len(head)), text=head + CUT)


def _items(view: Any, field: str, caps: ResultCaps) -> Any:
    items = getattr(view, field)
    room = _room(view, field, caps)
    kept: list[Any] = []
    used = 2
    for item in items[: caps.max_rows]:
        cost = json_size(item.model_dump(mode="json")) + 1
        if used + cost > room:
            break
        kept.append(item)
        used += cost
    if len(kept) == len(items):
        return view
    return _with(view, Cut(rows=len(items) - len(kept)), **{field: kept})


def cap_view(view: ToolView, caps: ResultCaps) -> ToolView:
    """``view`` within ``caps``, what was left out added to its ``cut``."""
    if isinstance(view, TableView):
        return _table(view, caps)
    if isinstance(view, TextView):
        return _text(view, caps)
    field = _ITEMS.get(view.kind)
    return _items(view, field, caps) if field else view


def cut_sentence(cut: Cut | None, lang: str, *, table: bool = False) -> str:
    """What ``cut`` left out, in ``lang`` ("" when nothing was)."""
    if cut is None:
        return ""
    parts = []
    if cut.rows:
        parts.append(t("result_cut_rows" if table else "result_cut_items", lang, n=cut.rows))
    if cut.cells:
        parts.append(t("result_cut_cells", lang, n=cut.cells, chars=cut.cell_chars))
    if cut.chars:
        parts.append(t("result_cut_text", lang, n=cut.chars))
    if not parts:
        return ""
    sentence = t("result_cut", lang, what="; ".join(parts))
    return f"{sentence} {t('result_cut_csv', lang)}" if table else sentence
