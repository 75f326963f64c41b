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

:func:`superlinear` runs one attack at 2,000 characters and at 20,000 (the message
cap) with the process's CPU clock: a linear pattern takes about 10× as long for 10× the
text; the bound is 30× plus 10 ms, and a quadratic pattern takes 100× (a cubic one 1,000×).
Each run has a CPU budget (:func:`cpu_budget`), so a super-linear pattern fails in at most
a second or two instead of running for hours; a run past its bound is measured again
(the baseline repeated to 20 ms, the minimum of two) before it is called super-linear, so
a loaded machine's noise is not. CPU time, not wall time: other processes do not count.
The calling thread's CPU clock (``time.thread_time``): once a process-wide CPU timer has
been armed, Linux reads the process's clock at the scheduler's tick (4 ms here), too
coarse for a run of a millisecond.
"""

from __future__ import annotations

import contextlib
import math
import re
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from re import _compiler as sre_compile  # type: ignore[attr-defined]
from re import _constants as sre
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

MESSAGE_CAP = 20_000
BASE = 2_000  # characters of the baseline run
SLACK = 3.0  # × the linear ratio (10×) a run at the message cap may take
FLOOR_S = 0.01  # CPU seconds any run may take more (timer granularity, caches)
BASE_BUDGET_S = 0.5  # a linear search of 2,000 characters takes milliseconds
SCREEN = 1_000  # characters every attack is first run at
SCREENED = 6  # the slowest attacks at SCREEN characters, checked at the message cap
REPEAT_S = 0.02  # a baseline measured again is repeated for this long
# characters a pump or a sample is drawn from: blanks, word characters of both scripts,
# the punctuation the product's patterns name, and NUL (matched by almost nothing)
ALPHABET = " \t\na1A_.-,:;/#№!?\"'`«»“„”()<>=@\\*|дЖ…\x00"
REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)
SINGLE = (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN)
MAX_PUMPS = 4  # characters tried per repeat


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
                for suffix in dict.fromkeys(("\x00", tail[:-1], tail + "\x00")):
                    yield Attack(head, pump, suffix)
        if op is sre.BRANCH:  # one alternative said again and again (a keyword repeated)
            for branch in av[1]:
                if said := tree.sample(branch):
                    yield Attack(head, said, "\x00")
                    yield Attack(head, said + " ", "\x00")
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


Search = Callable[[str], object]


def finditer_all(pattern: re.Pattern[str]) -> Search:
    """A search for every match of ``pattern`` (``sub``, ``findall`` and ``split`` cost the
    same; ``search`` and ``match`` at most as much)."""
    return lambda text: sum(1 for _ in pattern.finditer(text))


def _cpu(search: Search, text: str, budget: float) -> float:
    """CPU seconds of one run, or ``math.inf`` when it passes ``budget``."""
    start = time.thread_time()
    try:
        with cpu_budget(budget):
            search(text)
    except BudgetExceeded:
        return math.inf
    return time.thread_time() - start


def _repeated(search: Search, text: str) -> float:
    """CPU seconds of one run, from runs repeated for :data:`REPEAT_S` (a fast run is
    shorter than the clock's granularity on some machines)."""
    runs, start = 0, time.thread_time()
    while (spent := time.thread_time() - start) < REPEAT_S or runs == 0:
        search(text)
        runs += 1
    return spent / runs


@dataclass(frozen=True)
class Verdict:
    attack: Attack
    base_s: float  # CPU seconds at BASE characters
    cap_s: float  # at MESSAGE_CAP characters (inf: past its budget)

    def __str__(self) -> str:
        a = self.attack
        return (
            f"prefix={a.prefix[:40]!r} pump={a.pump[:20]!r} suffix={a.suffix[:20]!r}: "
            f"{BASE} chars {self.base_s * 1000:.2f} ms, {MESSAGE_CAP} chars "
            f"{self.cap_s * 1000:.1f} ms (bound {self.bound() * 1000:.1f} ms)"
        )

    def bound(self) -> float:
        return SLACK * (MESSAGE_CAP / BASE) * self.base_s + FLOOR_S


def superlinear(search: Search, attack: Attack) -> Verdict | None:
    """The attack's times when the run at the message cap took more than linear time
    allows (see the module docstring), else None."""
    small, big = attack.text(BASE), attack.text(MESSAGE_CAP)
    base = _cpu(search, small, BASE_BUDGET_S)
    if base == math.inf:
        return Verdict(attack, base, math.inf)
    verdict = Verdict(attack, base, 0.0)
    cap = _cpu(search, big, verdict.bound())
    if cap <= verdict.bound():
        return None
    verdict = Verdict(attack, _repeated(search, small), 0.0)
    cap = min(cap, _cpu(search, big, verdict.bound()))
    return None if cap <= verdict.bound() else Verdict(attack, verdict.base_s, cap)


def worst(search: Search, found: list[Attack]) -> Verdict | None:
    """A super-linear verdict among ``found``, or None. Every attack runs at
    :data:`SCREEN` characters; the :data:`SCREENED` slowest (where super-linear work shows
    first) are checked by :func:`superlinear`. A run past half a second at SCREEN characters
    is a verdict at once."""
    timed = []
    for attack in found:
        spent = _cpu(search, attack.text(SCREEN), BASE_BUDGET_S)
        if spent == math.inf:
            return Verdict(attack, math.inf, math.inf)
        timed.append((spent, attack))
    timed.sort(key=lambda pair: pair[0], reverse=True)
    for _, attack in timed[:SCREENED]:
        if (verdict := superlinear(search, attack)) is not None:
            return verdict
    return None
