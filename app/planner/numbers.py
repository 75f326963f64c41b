"""Numbers and counted nouns as a person reads them, in English and Russian.

``59849.78999999998`` → ``59,849.79`` (en) / ``59 849,79`` (ru, with a no-break space);
whole floats lose their ``.0``; tiny values keep three significant digits.
"""

from __future__ import annotations

import math

from app.planner.text import Lang

NBSP = "\u00a0"


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def fmt_number(value: float | int, lang: Lang) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, float) and value == int(value) and abs(value) < 1e15:
        value = int(value)
    if isinstance(value, int):
        text = f"{value:,}"
    elif abs(value) >= 0.01:
        text = f"{value:,.2f}".rstrip("0").rstrip(".")
    else:
        text = f"{value:.3g}"
    if lang == "ru":
        text = text.replace(",", NBSP).replace(".", ",")
    return text


def plural(count: int, forms: tuple[str, str] | tuple[str, str, str], lang: Lang) -> str:
    """``count`` with the noun form for it: (one, many) for English, (one, few, many)
    for Russian (1 дашборд, 2 дашборда, 5 дашбордов)."""
    number = fmt_number(count, lang)
    if lang == "ru" and len(forms) == 3:
        n = abs(count) % 100
        if 11 <= n <= 14:
            form = forms[2]
        elif n % 10 == 1:
            form = forms[0]
        elif 2 <= n % 10 <= 4:
            form = forms[1]
        else:
            form = forms[2]
    else:
        form = forms[0] if count == 1 else forms[1]
    return f"{number} {form}"
