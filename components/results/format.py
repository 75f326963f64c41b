"""Values as the page's language writes them: numbers (en 59,849.79; ru 59 849,79),
yes/no, timestamps (2026-01-31 14:05), and CSV text of a table (raw values)."""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Sequence
from typing import Any

from app.i18n import STRINGS, t
from app.text import csv_cell

NBSP = "\u00a0"  # the Russian thousands separator (a no-break space)
_ISO = re.compile(
    r"^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$"
)


def word(key: str, lang: str, fallback: str) -> str:
    """The string ``key`` in ``lang`` where the table has one, else ``fallback`` (a value
    the page has no word for is shown as it is)."""
    return t(key, lang) if key in STRINGS else fallback


def format_number(value: float | int, lang: str) -> str:
    """Grouped thousands, at most two decimals (float noise gone), the language's marks."""
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        if value != 0 and abs(value) < 0.01:
            text = f"{value:.2g}"
        else:
            text = f"{value:,.2f}".removesuffix(".00")
    else:
        text = f"{value:,}"
    if lang == "ru":
        text = text.replace(",", NBSP).replace(".", ",")
    return text


def format_cell(value: Any, lang: str) -> str:
    """One cell for display: numbers and booleans in the language, ISO times shortened."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return t("yes" if value else "no", lang)
    if isinstance(value, int | float):
        return format_number(value, lang)
    text = str(value)
    match = _ISO.match(text)
    return f"{match.group(1)} {match.group(2)}" if match else text


def csv_bytes(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> bytes:
    """A table as UTF-8 CSV (raw values, so numbers stay machine-readable; a text a
    spreadsheet would run as a formula is quoted: ``app.text.csv_cell``)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([csv_cell(h) for h in headers])
    for row in rows:
        writer.writerow(["" if v is None else csv_cell(v) for v in row])
    return out.getvalue().encode("utf-8")
