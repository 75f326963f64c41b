"""A tool call said five ways, and its arguments as the pieces of those sentences.

:class:`CallText` is one call's five forms as data (a tool's entry in its family file,
``app/planner/tools/<family>.py``, holds them): the step in English (a gerund) and in
Russian, the Russian noun of a cancelled call (English says "not " + the step), and the
call as a request a person can send, in English and Russian. ``{placeholders}`` are
filled per language by :func:`phrased`: ``{env}`` (" in prod" / " на prod"), ``{d}`` the
dashboard(s) in English, ``{acc}`` and ``{gen}`` in Russian (accusative, genitive), and
the values a tool's phrase function passes (a tool said with those common slots only
needs no function: its entry's ``phrase`` is the :class:`CallText` itself).
:func:`on_dashboards` writes the forms of a call that acts on the dashboard(s) from its
verbs; :func:`either` says a call one way when it has an argument, another without.

``Texts`` is what a phrase function returns: the five forms, filled.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass(frozen=True)
class CallText:
    """One call's five forms (see the module docstring): ``doing`` and ``request`` are
    (English, Russian); ``ru_noun`` is Russian only."""

    doing: tuple[str, str]
    ru_noun: str
    request: tuple[str, str]

    def __post_init__(self) -> None:
        forms = [*self.doing, self.ru_noun, *self.request]
        if len(forms) != 5 or not all(isinstance(f, str) and f.strip() for f in forms):
            raise ValueError(f"a call's five forms, each a non-blank text: {forms}")


Texts = tuple[str, str, str, str, str]  # en gerund, ru doing, ru noun (acc.), en req, ru req
Phrases = Callable[[Slots], Texts]
Value = str | tuple[str, str]  # one value for both languages, or (English, Russian)


def phrased(text: CallText, s: Slots, **values: Value) -> Texts:
    """The five forms of ``text``, filled with the call's dashboard (``d``, ``acc``,
    ``gen``), its environment (``env``: " in prod") and ``values``."""
    en = {"d": s.dash()}
    ru = {"acc": s.dash(ru_case="acc"), "gen": s.dash(ru_case="gen")}
    for name, value in {"env": s.both("env_id", "in", "на"), **values}.items():
        en[name], ru[name] = value if isinstance(value, tuple) else (value, value)
    return (
        text.doing[0].format_map(en),
        text.doing[1].format_map(ru),
        text.ru_noun.format_map(ru),
        text.request[0].format_map(en),
        text.request[1].format_map(ru),
    )


def on_dashboards(
    doing: tuple[str, str],
    ru_noun: str,
    request: tuple[str, str],
    *,
    tail: str = "{env}",
    request_tail: str = "",
    ru_object: str = "acc",
) -> CallText:
    """The five forms of a call that acts on the dashboard(s), from its verbs: "deleting
    dashboard 7 in dev", «удаляю дашборд 7 на dev», «удаление дашборда 7 на dev» (a verb
    takes the accusative, or ``ru_object``: «проверяю здоровье дашборда»; the noun the
    genitive), each followed by ``tail``, and a request by ``request_tail`` after it."""
    ask, obj = tail + request_tail, "{" + ru_object + "}"
    return CallText(
        doing=(f"{doing[0]} {{d}}{tail}", f"{doing[1]} {obj}{tail}"),
        ru_noun=f"{ru_noun} {{gen}}{tail}",
        request=(f"{request[0]} {{d}}{ask}", f"{request[1]} {obj}{ask}"),
    )


def either(key: str, given: CallText, otherwise: CallText, *, slot: str) -> Phrases:
    """A call said as ``given`` when it has the argument ``key`` (its value fills
    ``{slot}``), else as ``otherwise``."""

    def phrases(s: Slots) -> Texts:
        value = s.v(key)
        return phrased(given if value else otherwise, s, **{slot: value})

    return phrases
