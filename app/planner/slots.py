"""The arguments of one tool call as pieces of a phrase (see :mod:`app.planner.actions`).

``Texts`` is what a tool's phrase function returns: (English gerund, Russian "doing",
Russian noun in the accusative, English request, Russian request), filled by :func:`phrased`
from the tool's table in ``calls.toml`` (beside this module).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.planner.markup import md_escape
from app.planner.names import SLUG
from app.planner.text import Lang


@dataclass(frozen=True)
class Slots:
    """The call's arguments as phrase pieces; ``raw`` keeps values unescaped."""

    args: dict[str, Any]
    raw: bool

    def v(self, key: str) -> str:
        value = self.args.get(key)
        if value in (None, "", [], {}):
            return ""
        text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
        return text if self.raw else md_escape(text)

    def dash(self, *, ru_case: str = "") -> str:
        """``dashboard 7``, ``dashboards 1, 2``, ``dashboard "Sales demo"`` (ru: by case)."""
        refs = self.args.get("dashboard_ids") or self.args.get("dashboard_id") or []
        refs = [str(r) for r in (refs if isinstance(refs, list) else [refs])]
        many = len(refs) > 1
        if ru_case:
            noun = {"acc": ("дашборд", "дашборды"), "gen": ("дашборда", "дашбордов")}[ru_case]
        else:
            noun = ("dashboard", "dashboards")
        word = noun[1] if many else noun[0]
        if not refs:
            return word
        if len(refs) == 1 and not refs[0].isdigit() and not SLUG.fullmatch(refs[0]):
            name = refs[0] if self.raw else md_escape(refs[0])
            return f"{word} «{name}»" if ru_case else f'{word} "{name}"'
        return f"{word} {', '.join(refs if self.raw else map(md_escape, refs))}"

    def pre(self, key: str, en: str, ru: str, lang: Lang) -> str:
        """ " in prod" / " на prod" when the argument is given, else ""."""
        value = self.v(key)
        return f" {ru if lang == 'ru' else en} {value}" if value else ""

    def both(self, key: str, en: str, ru: str) -> tuple[str, str]:
        """(" into prod", " на prod") when the argument is given, else ("", "")."""
        return self.pre(key, en, ru, "en"), self.pre(key, en, ru, "ru")

    def of_dash(self, key: str, en: str, ru: str) -> tuple[str, str]:
        """(" of dashboard 7", " дашборда 7") when ``key`` names dashboards (Russian in the
        genitive), else ("", "")."""
        if not self.args.get(key):
            return "", ""
        return _words(en, self.dash()), _words(ru, self.dash(ru_case="gen"))


def _words(*words: str) -> str:
    return "".join(f" {w}" for w in words if w)


Texts = tuple[str, str, str, str, str]  # en gerund, ru doing, ru noun (acc.), en req, ru req
Phrases = Callable[[Slots], Texts]
Value = str | tuple[str, str]  # one value for both languages, or (English, Russian)

with Path(__file__).with_name("calls.toml").open("rb") as _file:
    CALLS: dict[str, dict[str, Any]] = tomllib.load(_file)


def phrased(key: str, s: Slots, **values: Value) -> Texts:
    """The five texts of ``calls.toml``'s table ``key``, filled with the call's dashboard
    (``d``, ``acc``, ``gen``), its environment (``env``: " in prod") and ``values``."""
    en = {"d": s.dash()}
    ru = {"acc": s.dash(ru_case="acc"), "gen": s.dash(ru_case="gen")}
    for name, value in {"env": s.both("env_id", "in", "на"), **values}.items():
        en[name], ru[name] = value if isinstance(value, tuple) else (value, value)
    row = CALLS[key]
    return (
        row["doing"][0].format_map(en),
        row["doing"][1].format_map(ru),
        row["ru_noun"].format_map(ru),
        row["request"][0].format_map(en),
        row["request"][1].format_map(ru),
    )
