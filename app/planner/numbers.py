"""Numbers and counted nouns as a person reads them, in English and Russian.

``59849.78999999998`` → ``59,849.79`` (en) / ``59 849,79`` (ru, with a no-break space);
whole floats lose their ``.0``; tiny values keep three significant digits. A counted
noun is a :class:`Noun` (its English and Russian forms, data) said by :func:`count_of`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Noun:
    """A noun's forms for counting: English (one, many), Russian (one, few, many)."""

    en: tuple[str, str]
    ru: tuple[str, str, str]


def count_of(count: int, noun: Noun, lang: Lang) -> str:
    """``count`` with the noun's form for it in ``lang`` ("5 дашбордов", "1 dashboard")."""
    return plural(count, noun.ru if lang == "ru" else noun.en, lang)


def counted(count: int, forms: tuple[str, str], lang: Lang) -> str | int:
    """English counts with the noun ("2 dashboards"); Russian names the noun before the
    number in its sentence ("дашбордов — 2"), so it takes the number alone."""
    return count if lang == "ru" else plural(count, forms, lang)
