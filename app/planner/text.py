"""Text helpers of the offline planner: quoted strings, environment mentions (a text's
language is ``app.i18n.detect_lang``'s).

Everything here is pure and deterministic: a string in, plain values out.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Literal

Lang = Literal["en", "ru"]
Role = Literal["source", "target"] | None

# --- quoted strings -------------------------------------------------------------------
# A fragment runs from an opening quote to the first closing one after at least one
# character: "..", «..», “..”, „..“ or „..”, `..`, and '..' when the quotes are not inside
# a word. Read by a scan, not a regex: an unclosed quote would make a regex search scan to
# the end of the text from each opening quote after it.
_CLOSERS = {'"': '"', "«": "»", "“": "”", "„": "“”", "`": "`", "'": "'"}
_OPENER = re.compile("[\"«“„`']")


def _is_word(text: str, i: int) -> bool:
    """Whether ``text[i]`` exists and is a word character (``re``'s ``\\w``)."""
    return 0 <= i < len(text) and (text[i].isalnum() or text[i] == "_")


class _NextOf:
    """The next position of a character at or after a point that only moves forward."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._found: dict[str, int] = {}

    def __call__(self, char: str, start: int) -> int:
        at = self._found.get(char, -2)
        if at != -1 and at < start:
            at = self.text.find(char, start)
            self._found[char] = at
        return at


def quoted_spans(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, inner)`` of every quoted fragment, in order (see above)."""
    spans: list[tuple[int, int, str]] = []
    next_of = _NextOf(text)
    pos = 0
    while (m := _OPENER.search(text, pos)) is not None:
        start = m.start()
        opener = text[start]
        pos = start + 1
        if opener == "'" and _is_word(text, start - 1):
            continue
        ends = [at for c in _CLOSERS[opener] if (at := next_of(c, start + 1)) >= 0]
        end = min(ends, default=-1)
        if end < start + 2 or (opener == "'" and _is_word(text, end + 1)):
            continue
        spans.append((start, end + 1, text[start + 1 : end]))
        pos = end + 1
    return spans


def quoted_strings(text: str) -> list[str]:
    """Every quoted fragment in order ("..", '..', «..», “..”, `..`)."""
    return [inner.strip() for _, _, inner in quoted_spans(text)]


def _replace_quoted(text: str, blank: bool) -> str:
    out, last = [], 0
    for start, end, _ in quoted_spans(text):
        out += [text[last:start], " " * (end - start) if blank else " "]
        last = end
    return "".join([*out, text[last:]])


def strip_quoted(text: str) -> str:
    return _replace_quoted(text, blank=False)


def blank_quoted(text: str) -> str:
    """The text with quoted fragments replaced by spaces (positions kept)."""
    return _replace_quoted(text, blank=True)


# --- environments -----------------------------------------------------------------------
TIER_SYNONYMS: dict[str, tuple[str, ...]] = {
    "prod": (
        "production",
        "prod",
        "продакшн",
        "продакшне",
        "продакшна",
        "продакшен",
        "продакшене",
        "продакшена",
        "прод",
        "прода",
        "проде",
        "проду",
        "продом",
        "боевой",
        "боевом",
        "боевого",
    ),
    "staging": ("staging", "stage", "stg", "стейджинг\\w*", "стейдж\\w*", "стэйдж\\w*"),
    "dev": ("development", "dev", "дев", "дева", "деве", "деву", "девом", "разработк\\w*"),
}

_SOURCE_WORDS = {"from", "off", "с", "со", "из", "source"}
_TARGET_WORDS = {"to", "into", "onto", "on", "на", "в", "во", "target"}


@dataclass(frozen=True)
class EnvMention:
    env_id: str
    start: int
    end: int
    role: Role


class EnvResolver:
    """Finds environment mentions and maps them to configured env ids.

    ``environments`` maps env id → tier ('dev' | 'staging' | 'prod'). A synonym maps to
    the env whose id equals the tier, else the first env of that tier, else the tier name.
    """

    def __init__(self, environments: dict[str, str] | None = None) -> None:
        self.environments = dict(environments or {})
        alternatives: list[tuple[str, str]] = [
            (re.escape(env_id), env_id) for env_id in self.environments
        ]
        for tier, words in TIER_SYNONYMS.items():
            alternatives += [(w, self.env_for_tier(tier)) for w in words]
        alternatives.sort(key=lambda a: len(a[0].replace("\\w*", "")), reverse=True)
        self._alternatives = [(re.compile(a, re.IGNORECASE), env) for a, env in alternatives]
        body = "|".join(a for a, _ in alternatives)
        self.pattern = re.compile(rf"(?<![\w.-])(?:{body})(?![\w-])", re.IGNORECASE)

    def resolve_word(self, word: str) -> str:
        """The env id a mention stands for (the word itself when it is unknown)."""
        for regex, env_id in self._alternatives:
            if regex.fullmatch(word):
                return env_id
        return word

    def env_for_tier(self, tier: str) -> str:
        if tier in self.environments:
            return tier
        for env_id, env_tier in self.environments.items():
            if env_tier == tier:
                return env_id
        return tier

    def mentions(self, text: str) -> list[EnvMention]:
        found = []
        before = _WordsBefore(text)
        for m in self.pattern.finditer(text):
            words = before(m.start())
            prev = words[-1] if words else ""
            if prev in {"environment", "env", "окружение", "окружения", "среда", "среды", "стенд"}:
                prev = words[-2] if len(words) > 1 else ""
            role: Role = (
                "source" if prev in _SOURCE_WORDS else "target" if prev in _TARGET_WORDS else None
            )
            found.append(EnvMention(self.resolve_word(m.group(0)), m.start(), m.end(), role))
        return found


_WORD = re.compile(r"[\w-]+")


class _WordsBefore:
    """The last two lower-cased words before a position of ``text``, for positions in
    increasing order, from one pass over the text (not a pass per position)."""

    def __init__(self, text: str) -> None:
        lowered = text.lower()
        # where each position of ``text`` is in ``lowered`` (a few characters lower to two)
        self._at = None
        if len(lowered) != len(text):
            self._at = list(itertools.accumulate((len(c.lower()) for c in text), initial=0))
        self._words = [(m.end(), m.group(0)) for m in _WORD.finditer(lowered)]
        self._next = 0

    def __call__(self, position: int) -> list[str]:
        end = position if self._at is None else self._at[position]
        while self._next < len(self._words) and self._words[self._next][0] <= end:
            self._next += 1
        return [word for _, word in self._words[max(0, self._next - 2) : self._next]]
