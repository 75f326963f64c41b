"""Every visible string of ss-tools, in English and Russian, read from one catalog
(``app/strings.toml``: the pages, the conversation's results and the offline planner's
engine; a tool's own words are declared with it: a tool call's own five forms, whose
Russian forms need their own cases, and the sentences of the planner's answers about its
result are data in the planner's family file, ``app/planner/tools/<family>.py``, said
with :func:`said`).

``t(key, lang, **fmt)`` looks a string up (``said`` says any (English, Russian) pair);
``pick_language`` chooses a page's language from ``?lang=``, else the user's stored
choice, else the browser's Accept-Language; ``detect_lang`` tells the language of a
piece of text (a message); ``refusal_text`` says why a request was refused, in the
page's language.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from app.vocab import LANGS, Lang

LANGUAGES: tuple[Lang, ...] = LANGS
DEFAULT_LANGUAGE: Lang = "en"
_CYRILLIC = re.compile("[\u0400-\u04ff]")


def _load(path: Path) -> dict[str, dict[str, tuple[str, str]]]:
    """The catalog's sections, each ``{key: (English, Russian)}``; a row that is not two
    strings is refused with its key (a broken catalog fails at start, never mid-page)."""
    with path.open("rb") as f:
        raw = tomllib.load(f)
    sections: dict[str, dict[str, tuple[str, str]]] = {}
    for section, rows in raw.items():
        table: dict[str, tuple[str, str]] = {}
        for key, pair in rows.items():
            if not (
                isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)
            ):
                raise ValueError(f"{path.name}: [{section}] {key} must be [English, Russian]")
            table[key] = (pair[0], pair[1])
        sections[section] = table
    return sections


_CATALOG = _load(Path(__file__).with_name("strings.toml"))
STRINGS: dict[str, tuple[str, str]] = _CATALOG["pages"]


def catalog(section: str) -> dict[str, tuple[str, str]]:
    """A section of the catalog (``pages``, ``planner``, …): ``{key: (English, Russian)}``."""
    return _CATALOG[section]


def said(pair: tuple[str, str], lang: str, **fmt: object) -> str:
    """An (English, Russian) pair in ``lang`` (else English), filled with any ``fmt``."""
    text = pair[1] if lang == "ru" else pair[0]
    return text.format(**fmt) if fmt else text


def t(key: str, lang: str = DEFAULT_LANGUAGE, **fmt: object) -> str:
    """The string ``key`` in ``lang`` (English for an unknown language)."""
    return said(STRINGS[key], lang, **fmt)


def progress_line(key: str, lang: str = DEFAULT_LANGUAGE, **fmt: object) -> str:
    """A long task's progress line (the catalog's ``[progress]`` section) in ``lang``."""
    return said(_CATALOG["progress"][key], lang, **fmt)


def refusal_text(
    error: str, reason: str, lang: str = DEFAULT_LANGUAGE, *, seconds: int | None = None
) -> str:
    """Why a request was refused, for the user: the known codes in the page's language,
    any other code as "The request was refused: <reason>"; ``seconds``: a refusal's wait
    (a user over a limit), "a few" when not known."""
    key = f"refused_{error}"
    if key in STRINGS:
        wait = seconds if seconds is not None else t("a_few", lang)
        return t(key, lang, reason=reason, seconds=wait)
    return t("refused", lang, reason=reason or error)


def is_refusal_code(error: str) -> bool:
    return f"refused_{error}" in STRINGS


def error_text(code: str, message: str, lang: str, *, tool: str | None = None) -> tuple[str, str]:
    """(what the page says, the server's text as a detail) for an error event: a refusal
    or a known code in the page's language; else the server's text when it is already in
    that language, or "Something went wrong (code)" with the text as the detail."""
    if is_refusal_code(code):
        return refusal_text(code, message, lang), ""
    if f"error_{code}" in STRINGS:
        return t(f"error_{code}", lang, tool=tool or "—"), message
    if message and detect_lang(message) == lang:
        return message, ""
    return t("error_other", lang, code=code), message


def key_label(key: str, lang: str) -> str:
    """A view's column or fact key as a label (``col_<key>``; else the key, readable)."""
    return t(f"col_{key}", lang) if f"col_{key}" in STRINGS else key.replace("_", " ").capitalize()


def model_name(label: str, lang: str) -> str:
    """The answering model's label in the page's language: the offline planner's label is
    ours to translate; a provider's model name (``gpt-4o @ host``) stays as it is."""
    return t("offline_planner", lang) if label == t("offline_planner", "en") else label


def detect_lang(text: str | None) -> Lang:
    """The language of a message: Russian when it has any Cyrillic letter, else English."""
    return "ru" if _CYRILLIC.search(text or "") else "en"


def normalize_language(value: str | None) -> Lang | None:
    """'ru', 'ru-RU', 'RU' -> 'ru'; unsupported or empty -> None."""
    if not value:
        return None
    code = value.strip().lower().replace("_", "-").split("-")[0]
    for lang in LANGUAGES:
        if lang == code:
            return lang
    return None


def language_from_accept(header: str | None) -> Lang | None:
    """The best supported language of an Accept-Language header, by q-value."""
    if not header:
        return None
    ranked: list[tuple[float, int, Lang]] = []
    for index, part in enumerate(header.split(",")):
        bits = part.strip().split(";")
        quality = 1.0
        for bit in bits[1:]:
            name, _, value = bit.strip().partition("=")
            if name == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        lang = normalize_language(bits[0])
        if lang and quality > 0:
            ranked.append((-quality, index, lang))
    return sorted(ranked)[0][2] if ranked else None


def pick_language(query: str | None, stored: str | None, accept_language: str | None) -> Lang:
    """``?lang=`` wins, then the user's stored choice, then the browser, then English."""
    return (
        normalize_language(query)
        or normalize_language(stored)
        or language_from_accept(accept_language)
        or DEFAULT_LANGUAGE
    )
