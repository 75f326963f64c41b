"""The arguments of one tool call as pieces of a phrase (see :mod:`app.agent.planner.actions`).

``Texts`` is what a tool's phrase function returns: (English gerund, Russian "doing",
Russian noun in the accusative, English request, Russian request).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.agent.planner.names import SLUG
from app.agent.planner.text import Lang
from app.markup import md_escape


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


Texts = tuple[str, str, str, str, str]  # en gerund, ru doing, ru noun (acc.), en req, ru req
Phrases = Callable[[Slots], Texts]


def env_phrase(s: Slots, lang: Lang, key: str = "env_id") -> str:
    return s.pre(key, "in", "на", lang)


def from_to(s: Slots, lang: Lang) -> str:
    return s.pre("source_env", "from", "с", lang) + s.pre("target_env", "to", "на", lang)
