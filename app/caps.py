"""Size caps: what one model call, one tool result and one export bundle may hold, and
how rows of values are cut to fit.

The defaults live here, with the reasons for them; ``app.settings.Settings`` takes its
defaults from these constants and makes the groups from what is configured
(``Settings.result_caps()``, ``Settings.bundle_caps()``). A leaf: standard library only.

* **A model call** (:data:`MODEL_INPUT_MAX_CHARS`): the characters one call sends — the
  system text, the tools offered and the conversation. 32,000 characters are about
  8,000–11,000 tokens: the largest message a person may send (20,000 characters) fits
  beside the stable prefix (system text and every tool an admin is offered, about 11,500
  characters today), so the current turn is cut only when its own tool results push it
  over. A hosted model's call stays cheap; ``start --local-model`` sets the budget from
  the local model's context instead (8,192 tokens a slot).
* **A tool result** (:class:`ResultCaps`): what its view, its structured data and the
  conversation's checkpoint keep. 200 rows (a page of a query result is 10; SQL Lab's
  own answer is larger, and the CSV download is the view's rows), 1,000 characters a
  value (more is not read in a table cell), 64 KiB in all (one size for the view, the
  MCP structured output and the checkpoint; a result that size is stored again in every
  later checkpoint of its conversation, so the cap bounds that growth too).
* **A Superset answer** (:data:`MAX_RESPONSE_BYTES`): 16 MiB, read before parsing.
  Larger than any answer the product needs (an export within the bundle cap compresses to
  less; 1,001 rows of ordinary width are a few MB), small enough to parse off the loop.
* **An export bundle** (:class:`BundleCaps`): 32 MiB of YAML once unpacked (about
  20,000 objects: Superset writes 1–3 KB an object; parsed, YAML takes several times its
  text in memory and seconds a MB of CPU, off the loop), 10,000 files, and no more than
  100 times its packed size once it unpacks past 1 MiB (Superset stores its exports
  uncompressed; YAML deflates 4–15 times; a zip bomb hundreds to a thousand times). A
  YAML document whose aliases would make it more than :data:`MAX_ALIAS_GROWTH` times its
  own nodes is a bomb too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

MODEL_INPUT_MAX_CHARS = 32_000
MAX_RESPONSE_BYTES = 16 * 1024 * 1024
CUT = "…"


@dataclass(frozen=True)
class ResultCaps:
    """What one tool result's view, data and checkpoint hold at most."""

    max_rows: int = 200
    max_cell_chars: int = 1_000
    max_bytes: int = 64 * 1024


@dataclass(frozen=True)
class BundleCaps:
    """What one export zip may unpack to."""

    max_bytes: int = 32 * 1024 * 1024
    max_ratio: int = 100
    max_members: int = 10_000
    ratio_floor: int = 1024 * 1024  # smaller archives may compress as well as they like


MAX_ALIAS_GROWTH = 10
ALIAS_FLOOR = 100_000  # nodes a document may have through aliases whatever its size


def json_size(value: Any) -> int:
    """Bytes of ``value`` as compact UTF-8 JSON (what a view or data costs to send and store)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return len(text.encode("utf-8"))


def cut_text(text: str, max_chars: int) -> str:
    """``text`` within ``max_chars`` characters, an ellipsis marking a cut."""
    return text if len(text) <= max_chars else text[: max(max_chars - 1, 0)] + CUT


@dataclass(frozen=True)
class CutRows:
    """Rows cut to a :class:`ResultCaps`: what is kept and what was left out."""

    rows: list[Any]
    rows_left_out: int = 0
    cells_shortened: int = 0

    @property
    def cut(self) -> bool:
        return bool(self.rows_left_out or self.cells_shortened)


def _cell(value: Any, max_chars: int) -> tuple[Any, bool]:
    if isinstance(value, str):
        return cut_text(value, max_chars), len(value) > max_chars
    if value is None or isinstance(value, bool | int | float):
        return value, False
    text = json.dumps(value, ensure_ascii=False, default=str)  # a nested value: as text
    return (cut_text(text, max_chars), True) if len(text) > max_chars else (value, False)


def cap_rows(rows: list[Any], caps: ResultCaps, *, room: int | None = None) -> CutRows:
    """The first rows of ``rows`` (dicts or sequences of values) within ``caps``: at most
    ``max_rows`` of them, each value within ``max_cell_chars``, all together within
    ``room`` bytes of JSON (default ``max_bytes``). Linear in what is kept."""
    budget = caps.max_bytes if room is None else room
    kept: list[Any] = []
    shortened = 0
    used = 2
    for raw in rows[: caps.max_rows]:
        if isinstance(raw, dict):
            pairs = [(k, _cell(v, caps.max_cell_chars)) for k, v in raw.items()]
            row: Any = {k: v for k, (v, _) in pairs}
            cuts = sum(1 for _, (_, c) in pairs if c)
        elif isinstance(raw, list | tuple):
            cells = [_cell(v, caps.max_cell_chars) for v in raw]
            row, cuts = [v for v, _ in cells], sum(1 for _, c in cells if c)
        else:
            row, cut = _cell(raw, caps.max_cell_chars)
            cuts = int(cut)
        cost = json_size(row) + 1
        if used + cost > budget:
            break
        kept.append(row)
        shortened += cuts
        used += cost
    return CutRows(kept, len(rows) - len(kept), shortened)
