"""Text helpers of the offline planner: quoted strings, environment mentions (a text's
language is ``app.i18n.detect_lang``'s).

Everything here is pure and deterministic: a string in, plain values out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Lang = Literal["en", "ru"]
Role = Literal["source", "target"] | None

# --- quoted strings -------------------------------------------------------------------
QUOTED_PATTERN = r"\"([^\"]+)\"|«([^»]+)»|“([^”]+)”|„([^“”]+)[“”]|`([^`]+)`|(?<!\w)'([^']+)'(?!\w)"
_QUOTED = re.compile(QUOTED_PATTERN)


def quoted_strings(text: str) -> list[str]:
    """Every quoted fragment in order ("..", '..', «..», “..”, `..`)."""
    return [next(g for g in m.groups() if g is not None).strip() for m in _QUOTED.finditer(text)]


def strip_quoted(text: str) -> str:
    return _QUOTED.sub(" ", text)


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
        for m in self.pattern.finditer(text):
            before = re.findall(r"[\w-]+", text[: m.start()].lower())
            prev = before[-1] if before else ""
            if prev in {"environment", "env", "окружение", "окружения", "среда", "среды", "стенд"}:
                prev = before[-2] if len(before) > 1 else ""
            role: Role = (
                "source" if prev in _SOURCE_WORDS else "target" if prev in _TARGET_WORDS else None
            )
            found.append(EnvMention(self.resolve_word(m.group(0)), m.start(), m.end(), role))
        return found
