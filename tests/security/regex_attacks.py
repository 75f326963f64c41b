"""Worst inputs for a regex, built from its own syntax tree, and a linear-time check.

A backtracking engine (Python's ``re``) goes super-linear when one character can be
taken in more than one way: two neighbouring repeats that accept it (``\\s*,?\\s+``), a
repeat inside a repeat, a repeat followed by something that fails only at the end, or a
search that restarts at every position of a long run and scans to its end each time
(``[\\w.-]+$``, ``<title>.*?</title>`` with no closing tag).

:func:`attacks` walks a pattern's parsed tree (``re._parser``) and, for every unbounded
repeat, builds the classic attack ``prefix + pump * n + suffix``: the prefix is a string
that leads the pattern up to the repeat, the pump is a character (or one iteration) the
repeat accepts, and the suffix makes the match fail at the end (a NUL, the end of the
text, or what would follow the repeat minus its last character). It adds the pattern's
own sample repeated, for searches that restart at each occurrence.

:func:`superlinear` times one attack at 2,000 and at 20,000 characters (the message
cap) with the process's CPU clock and compares: a linear pattern takes about 10× as long
for 10× the text; the bound allows 30× plus a few milliseconds, and a quadratic one
takes 100× (a cubic one 1,000×). It grows the text in steps (250, 800, 2,000, 20,000),
stopping at the first step past the bound, so a cubic pattern fails in a second rather
than running for hours; an exponential one is cut by :func:`cpu_budget`.
"""

from __future__ import annotations

import contextlib
import re
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from re import _compiler as sre_compile  # type: ignore[attr-defined]
from re import _constants as sre
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

MESSAGE_CAP = 20_000
STEPS = (250, 800, 2_000, MESSAGE_CAP)
SLACK = 3.0  # × the linear ratio between two steps
FLOOR_S = 0.005  # CPU seconds any step may take whatever its ratio (timer and cache noise)
# characters a pump or a sample is drawn from: blanks, word characters of both scripts,
# the punctuation the product's patterns name, and NUL (matched by almost nothing)
ALPHABET = " \t\na1A_.-,:;/#№!?\"'`«»“„”()<>=@\\*|дЖ…\x00"
REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)
SINGLE = (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN)
MAX_PUMPS = 8  # characters tried per repeat


@dataclass(frozen=True)
class Attack:
    prefix: str
    pump: str
    suffix: str

    def text(self, n: int) -> str:
        room = max(len(self.pump), n - len(self.prefix) - len(self.suffix))
        return self.prefix + self.pump * (room // len(self.pump)) + self.suffix


class _Tree:
    """One parsed pattern: samples of its parts and the characters each part accepts."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.parsed = sre_parse.parse(pattern.pattern, pattern.flags)
        self.flags = self.parsed.state.flags
        self._members: dict[int, list[str]] = {}
        self.interesting = set(" a1.")
        self._collect(self.parsed.data)

    def members(self, node: tuple[Any, Any]) -> list[str]:
        """The characters of ALPHABET that a one-character node accepts."""
        key = id(node)
        if key not in self._members:
            one = sre_compile.compile(sre_parse.SubPattern(self.parsed.state, [node]), self.flags)
            self._members[key] = [c for c in ALPHABET if one.fullmatch(c)]
        return self._members[key]

    def _collect(self, items: Any) -> None:
        for op, av in items:
            if op is sre.LITERAL:
                self.interesting.add(chr(av))
            elif op in SINGLE:
                self.interesting.update(self.members((op, av))[:1])
            for child in _children(op, av):
                self._collect(child)

    def sample(self, items: Any, pick: int = 0) -> str:
        """A short text the nodes match (lookarounds and anchors left out)."""
        out = []
        for op, av in items:
            if op is sre.LITERAL:
                out.append(chr(av))
            elif op in SINGLE:
                members = self.members((op, av)) or ["a"]
                out.append(members[min(pick, len(members) - 1)])
            elif op is sre.BRANCH:
                out.append(self.sample(av[1][0], pick))
            elif op is sre.SUBPATTERN:
                out.append(self.sample(av[3], pick))
            elif op is sre.ATOMIC_GROUP:
                out.append(self.sample(av, pick))
            elif op in REPEATS:
                out.append(self.sample(av[2], pick) * min(max(av[0], 1), 4))
        return "".join(out)

    def pumps(self, body: Any) -> list[str]:
        if len(body) == 1 and body[0][0] in SINGLE:
            found = self.members(body[0])
            liked = [c for c in found if c in self.interesting]
            return (liked + [c for c in found if c not in liked])[:MAX_PUMPS]
        return list(dict.fromkeys(p for p in (self.sample(body), self.sample(body, 1)) if p))


def _children(op: Any, av: Any) -> list[Any]:
    if op is sre.BRANCH:
        return list(av[1])
    if op is sre.SUBPATTERN:
        return [av[3]]
    if op is sre.ATOMIC_GROUP:
        return [av]
    if op in REPEATS:
        return [av[2]]
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        return [av[1]]
    if op is sre.GROUPREF_EXISTS:
        return [b for b in av[1:] if b is not None]
    return []


def _unbounded(av: Any) -> bool:
    return av[1] is sre.MAXREPEAT or av[1] > 1_000


def _walk(tree: _Tree, items: Any, prefix: str, rest: str) -> Iterator[Attack]:
    for i, (op, av) in enumerate(items):
        head = prefix + tree.sample(items[:i])
        tail = tree.sample(items[i + 1 :]) + rest
        if op in REPEATS and _unbounded(av):
            for pump in tree.pumps(av[2]):
                for suffix in dict.fromkeys(("\x00", "", tail[:-1], tail + "\x00")):
                    yield Attack(head, pump, suffix)
        if op in (sre.ASSERT, sre.ASSERT_NOT):
            tail = ""
        for child in _children(op, av):
            yield from _walk(tree, child, head, tail)


def attacks(pattern: re.Pattern[str]) -> list[Attack]:
    """Every attack on ``pattern`` (see the module docstring), without repeats."""
    tree = _Tree(pattern)
    found = list(_walk(tree, tree.parsed.data, "", ""))
    top = tree.parsed.data
    branches = top[0][1][1] if len(top) == 1 and top[0][0] is sre.BRANCH else [top]
    for branch in branches:
        whole = tree.sample(branch)
        for pump in (whole, whole[:-1], whole + " "):
            if pump:
                found.append(Attack("", pump, "\x00"))
    return list(dict.fromkeys(found))


class BudgetExceeded(Exception):
    """The CPU budget of :func:`cpu_budget` ran out."""


@contextlib.contextmanager
def cpu_budget(seconds: float) -> Iterator[None]:
    """Raise :class:`BudgetExceeded` inside the block after ``seconds`` of process CPU
    time (``re`` checks for signals while it matches, so a runaway search stops)."""

    def _stop(_signum: int, _frame: Any) -> None:
        raise BudgetExceeded(f"over {seconds} s of CPU")

    previous = signal.signal(signal.SIGPROF, _stop)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def _cpu(pattern: re.Pattern[str], text: str) -> float:
    start = time.process_time()
    for _ in pattern.finditer(text):
        pass
    return time.process_time() - start


@dataclass(frozen=True)
class Verdict:
    attack: Attack
    times: tuple[tuple[int, float], ...]  # (characters, CPU seconds) per step run

    def __str__(self) -> str:
        shown = ", ".join(f"{n}: {s * 1000:.1f} ms" for n, s in self.times)
        a = self.attack
        return f"prefix={a.prefix[:40]!r} pump={a.pump[:20]!r} suffix={a.suffix[:20]!r}: {shown}"


def superlinear(pattern: re.Pattern[str], attack: Attack) -> Verdict | None:
    """The attack's times when some step took more than linear time allows, else None
    (each step is measured twice before it is called super-linear)."""
    times: list[tuple[int, float]] = []
    for n in STEPS:
        spent = _cpu(pattern, attack.text(n))
        if times:
            n0, t0 = times[-1]
            bound = SLACK * (n / n0) * t0 + FLOOR_S
            if spent > bound:
                spent = min(spent, _cpu(pattern, attack.text(n)))
            if spent > bound:
                return Verdict(attack, (*times, (n, spent)))
        times.append((n, spent))
    return None
