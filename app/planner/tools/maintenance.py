"""The offline planner's knowledge of the maintenance tools: starting a window (for how
long, and why) and ending it."""

from __future__ import annotations

import re
from typing import Any

from app.planner.knowledge import ToolKnowledge, row
from app.planner.labels import named, when
from app.planner.markup import md_escape
from app.planner.phrases import sayer
from app.planner.request import Request
from app.planner.results import Result
from app.planner.slots import CallText, Slots, Texts, phrased
from app.planner.tails import tail_pattern, tail_search, tail_start, tail_value
from app.planner.text import Lang

_MAINT = r"(?:maintenance|обслуживани\w*|техработ\w*|технически\w*\s+работ\w*)"

# --- reading ------------------------------------------------------------------------------
# a number starts at the first digit of its run (a search would otherwise try each digit)
_MINUTES = re.compile(r"(?<!\d)(\d++)\s*+(?:minutes?|mins?|m\b|минут\w*|мин\b)", re.I)
_HOURS = re.compile(r"(?<!\d)(\d++(?:[.,]5)?)\s*+(?:hours?|hrs?|h\b|час\w*)", re.I)
_HALF_HOUR = re.compile(r"half\s+an\s+hour|полчаса", re.I)
_AN_HOUR = re.compile(r"\ban\s+hour\b|\bone\s+hour\b|на\s+час\b|\bчас\b", re.I)


def duration_minutes(text: str) -> int | None:
    if m := _MINUTES.search(text):
        return int(m.group(1))
    if m := _HOURS.search(text):
        return int(float(m.group(1).replace(",", ".")) * 60)
    if _HALF_HOUR.search(text):
        return 30
    if _AN_HOUR.search(text):
        return 60
    return None


# "for <purpose>" / "для <purpose>" to the end of the request, where the words after "for"
# are no duration: not "for 2 hours", "for an hour", "for the next …", nor a clause (up
# to , . ;) that names minutes, hours or days
_FOR = re.compile(r"\b(?:for|для)(\s+)", re.IGNORECASE)
_NOT_A_PURPOSE = re.compile(
    r"\d|an?\s+hour|one\s+hour|half\s+an|the\s+next\b|(?:a|one)\s+day\b", re.IGNORECASE
)
_DURATION_WORD = re.compile(r"\b(?:min(?:ute)?s?|hours?|days?|минут\w*|час\w*|дн\w*)\b", re.I)
_CLAUSE_END = re.compile(r"[,.;]")
_REST = re.compile(r"(.+)$")
_FOR_CHARS = 3  # "for", "для"


class _Ahead:
    """The next match of a pattern at or after a position that only moves forward."""

    def __init__(self, pattern: re.Pattern[str], text: str, start: int) -> None:
        self._matches = pattern.finditer(text, start)
        self._next = next(self._matches, None)

    def start(self, position: int) -> int:
        while self._next is not None and self._next.start() < position:
            self._next = next(self._matches, None)
        return self._next.start() if self._next is not None else -1


def purpose(text: str) -> str | None:
    """What the maintenance is for ("… on dev for a release"), read as the rest of the
    request after the first "for" that does not give a duration (one pass: the clause's
    end and the next duration word are read ahead once, not again for each "for")."""
    start = tail_start(text, _FOR_CHARS)
    durations = _Ahead(_DURATION_WORD, text, start)
    clause_ends = _Ahead(_CLAUSE_END, text, start)
    for m in _FOR.finditer(text, start):
        at = m.end()
        if _NOT_A_PURPOSE.match(text, at):
            if len(m.group(1)) < 2:
                continue
            at -= 1  # a search gives one blank back, and the purpose starts with it
        duration, clause_end = durations.start(at), clause_ends.start(at)
        if duration >= 0 and (clause_end < 0 or duration < clause_end):
            continue
        back = at  # past the end, "\s+" gives back a blank: the last one before the end
        while back > m.start(1) + 1 and (back == len(text) or text[back] == "\n"):
            back -= 1
        if (rest := _REST.match(text, at)) or (rest := _REST.match(text, back)):
            return rest.group(1)
    return None


_BECAUSE = tail_pattern(
    r"because(?:\s+of)?|reason(?:\s*+[:=])?|due\s+to|причина(?:\s*+[:=])?|потому\s+что|из-за"
    r"|по\s+причине",
    re.IGNORECASE,
)


def _start_args(req: Request) -> dict[str, Any]:
    reason = req.quoted[0] if req.quoted else None
    if reason is None:  # "because …", else "… on dev for a release": what it is for
        m = tail_search(_BECAUSE, req.prefix)
        found = tail_value(m) if m else purpose(req.prefix)
        reason = found.strip(" .") if found is not None else None
    return {
        "env_id": req.env_id(),
        "reason": reason,
        "duration_minutes": duration_minutes(req.scan),
    }


# --- saying a call ------------------------------------------------------------------------
_START = CallText(
    doing=("starting maintenance{env}{minutes}", "включаю обслуживание{env}{minutes}"),
    ru_noun="обслуживание{env}{minutes}",
    request=(
        "start maintenance{env}{minutes}{reason}",
        "включи обслуживание{env}{minutes}{reason}",
    ),
)


def _start_said(s: Slots) -> Texts:
    minutes, reason = s.v("duration_minutes"), s.v("reason")
    return phrased(
        _START,
        s,
        env=s.both("env_id", "on", "на"),
        minutes=(f" for {minutes} minutes", f" на {minutes} минут") if minutes else "",
        reason=(f" because {reason}", f", причина: {reason}") if reason else "",
    )


_END = CallText(
    doing=("ending maintenance{env}", "завершаю обслуживание{env}"),
    ru_noun="завершение обслуживания{env}",
    request=("end maintenance{env}", "заверши обслуживание{env}"),
)


# --- answers ------------------------------------------------------------------------------
#: this family's answer sentences, (English, Russian) with the same placeholders, said by _say
SAID: dict[str, tuple[str, str]] = {
    "maintenance_until": ("until {ends} UTC", "до {ends} UTC"),
    "maintenance_until_ended": ("until you end it", "до вашей команды"),
    "maintenance_started": (
        "{env} is in maintenance {until}{why}: changes there are refused.",
        "{env} в режиме обслуживания {until}{why}: изменения там запрещены.",
    ),
    "maintenance_ended": (
        "Maintenance on {env} has ended; changes are allowed again.",
        "Обслуживание {env} завершено; изменения снова разрешены.",
    ),
}


_say = sayer(SAID)


def _started(args: dict[str, Any], result: Result, lang: Lang) -> str:
    ends = result.get("ends_at")
    until = (
        _say("maintenance_until", lang, ends=when(ends))
        if ends
        else _say("maintenance_until_ended", lang)
    )
    reason = result.get("reason")
    why = f" ({md_escape(reason)})" if reason else ""
    env = named(result, args, "env_id")
    return _say("maintenance_started", lang, env=env, until=until, why=why)


# --- the tools ----------------------------------------------------------------------------
TOOLS = (
    ToolKnowledge(
        "start_maintenance",
        # its start said in so many words is strong; any other mention of maintenance is
        # weak, so an end ("take prod out of maintenance") never reads as a start too
        rows=(
            row(
                30,
                [
                    r"\b(?:start|begin|enter|enable|turn\s+on|put|switch|go|schedule|announce"
                    r"|declare|open)\b.{0,30}" + _MAINT,
                    r"\b(?:into|in)\s+(?:the\s+)?" + _MAINT,
                    r"\b(?:включ|нач|запуст|откр|закр|объяв|перевед|перевест|постав|уйд|уход"
                    r"|войд|зайд)\w*.{0,30}" + _MAINT,
                    r"\b(?:в|на)\s+(?:режим\s+)?" + _MAINT,
                ],
                [_MAINT],
            ),
        ),
        read_args=_start_args,
        phrase=_start_said,
        report=_started,
    ),
    ToolKnowledge(
        "end_maintenance",
        rows=(
            row(
                20,
                [
                    r"\b(?:end|stop|finish|exit|disable|turn\s+off|leave|cancel|close|lift|remove)\b"
                    r".{0,30}" + _MAINT,
                    _MAINT + r".{0,20}\b(?:off|over|done)\b",
                    r"\b(?:out\s+of|back\s+from)\s+(?:the\s+)?" + _MAINT,  # "take prod out of …"
                    r"\bиз\s+(?:режима\s+)?" + _MAINT,  # "выведи дев из режима обслуживания"
                    r"(?:заверш|законч|выключ|отключ|останов|сним|выйд|выйт|прекрат|отмен|сверн)\w*"
                    r".{0,30}" + _MAINT,
                ],
            ),
        ),
        read_args=lambda req: {"env_id": req.env_id()},
        phrase=lambda s: phrased(_END, s, env=s.both("env_id", "on", "на")),
        report=lambda args, result, lang: _say(
            "maintenance_ended", lang, env=named(result, args, "env_id")
        ),
    ),
)
