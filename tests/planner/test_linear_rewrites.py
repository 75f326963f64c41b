"""The patterns made linear read what the old ones read.

Each row pairs a pattern (or a scan) as it was before it was made linear
(``tests/planner/old_patterns.py``) with the product's one, and compares what they find
on random texts built from the fragments the pattern cares about (hypothesis).

Known, intended differences are left out of the fragments: a word ending longer than 30
characters after a stem, a Russian keyword glued to its number ("дашборд5"), a fence of
blanks only, an empty "key:" line, more than eight trailing SQL phrases.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app import facts
from app.agent.nodes import salvage
from app.planner import keywords, names, picks, sqltext, tails
from app.planner.keywords import AFTER_DB, BEFORE_TABLE
from app.planner.request import _DASHBOARD_IDS, _not_a_dashboard_before
from app.planner.text import quoted_spans
from app.planner.tools import deploy, git, maintenance, sql
from app.superset import error_responses
from components.markdown_code import code_spans
from tests.planner import old_patterns as old

Read = Callable[[str], Any]


def first(pattern: re.Pattern[str], how: str = "search") -> Read:
    def read(text: str) -> Any:
        m = getattr(pattern, how)(text)
        return None if m is None else (m.start(), m.groups())

    return read


def named(read: Read) -> Read:
    """``read``, with a match that names an object by blanks only read as no match (the
    old pick patterns took "schema x in database  " as database " "; the new ones do not)."""

    def only_names(text: str) -> Any:
        found = read(text)
        blank = found is not None and any(g is not None and not g.strip() for g in found[1])
        return None if blank else found

    return only_names


def fresh_runs(pattern: re.Pattern[str]) -> Read:
    """The old pattern's names, without one that starts inside a run of [\\w.] the match
    before it took part of ("orders table.orders table": the old one read a second
    "orders" out of "table.orders"; the linear one reads each run once)."""

    def read(text: str) -> list[str]:
        names, end = [], 0
        for m in pattern.finditer(text):
            run = m.start()
            while run and re.match(r"[\w.]", text[run - 1]):
                run -= 1
            if run >= end:
                names.append(m.group(1))
            end = m.end()
        return names

    return read


def every(pattern: re.Pattern[str]) -> Read:
    return lambda text: [(m.span(), m.groups()) for m in pattern.finditer(text)]


def group1(pattern: re.Pattern[str], how: str = "search") -> Read:
    return lambda text: (m := getattr(pattern, how)(text)) and m.group(1)


def old_tail(pattern: re.Pattern[str]) -> Read:
    return lambda text: (m := pattern.search(text)) and next(g for g in m.groups() if g)


def new_tail(pattern: re.Pattern[str]) -> Read:
    return lambda text: (m := tails.tail_search(pattern, text)) and tails.tail_value(m)


def per_number(check: Callable[[str, int], bool]) -> Read:
    return lambda text: [check(text, m.start()) for m in old.BARE_NUMBER.finditer(text)]


def per_keyword(read: Callable[[str, int], Any]) -> Read:
    return lambda text: [read(text, m.start()) for m in re.finditer("dashboard", text)]


def kept_tags(text: str) -> str:
    return error_responses._TAG.sub(lambda m: " " if m.group(0).endswith(">") else m.group(0), text)


SQL = ["select 1", " ", "  ", "\t", ",", " on", " in", " на", " the", " database", " db"]
SQL += [" базе", " данных", " schema", " prod", " dev", " env", " please", " pls", " #", " 1"]
WORDS = ["x ", "sales ", "a.b ", "the ", "Sales ", "for ", "для ", "\n", " ", "  ", ",", "."]
PICK = ["dashboard ", "backup ", "schema ", "in database ", "в базе ", "7", "abf0", "1a2b"]
PICK += ["dev", "main", " ", "  ", ".", "!", "…", "\n", "x y"]
NEW_TRAILING = sqltext.trailing_patterns(old.ENVS.pattern.pattern)
NEW_PICKS = (picks._DASHBOARD, picks._BACKUP, picks._SCHEMA)
ROWS: list[tuple[str, Read, Read, list[str]]] = [
    *[
        (f"trailing {i}", first(o), first(n), [*SQL, " x.y", "!"])
        for i, (o, n) in enumerate(zip(old.TRAILING, NEW_TRAILING, strict=True))
    ],
    *[
        (f"pick {i}", named(first(o, "match")), first(n, "match"), PICK)
        for i, (o, n) in enumerate(zip(old.PICKS, NEW_PICKS, strict=True))
    ],
    (
        "dashboard ids",
        every(old.DASHBOARD_IDS),
        every(_DASHBOARD_IDS),
        [
            "dashboard ",
            "dashboards ",
            "дашборд ",
            "дашборда ",
            "id ",
            "ids ",
            "#",
            "№",
            "номер ",
            ":",
            "=",
            " ",
            "  ",
            "1",
            "23",
            ",",
            ";",
            " and ",
            " и ",
            "&",
            "x ",
            "\n",
        ],
    ),
    (
        "not a dashboard before",
        per_number(lambda t, s: bool(old.NOT_DASHBOARD_BEFORE.search(t[:s]))),
        per_number(_not_a_dashboard_before),
        [
            "task",
            "tasks",
            "job",
            "backup",
            "бэкапа",
            "задачи",
            "limit",
            "top",
            "role",
            "роли",
            "мультизадача",
            "#",
            "№",
            " ",
            "  ",
            "1",
            "x",
            "\n",
            ".",
        ],
    ),
    (
        "quoted",
        lambda t: [(m.span(), next(g for g in m.groups() if g)) for m in old.QUOTED.finditer(t)],
        lambda t: [((s, e), inner) for s, e, inner in quoted_spans(t)],
        ['"', "«", "»", "“", "”", "„", "`", "'", "a", " ", "b'", "'c"],
    ),
    (
        "code spans",
        lambda t: [m.span() for m in old.CODE.finditer(t)],
        code_spans,
        ["`", "``", "```", "~~~", "\n", " ", "a", "<"],
    ),
    (
        "pairs",
        every(old.PAIR),
        every(deploy._PAIR),
        ["a", "b.c", "-", "->", "=>", "→", "=", ":", " ", ">", "1"],
    ),
    (
        "name before database",
        group1(old.NAME_BEFORE_DB),
        group1(keywords._NAME_BEFORE_DB),
        ["sales", "x.y", "1", "-", ".", "_a", " ", "database", "db", "дб"],
    ),
    (
        "name before table",
        fresh_runs(old.NAME_BEFORE_TABLE),
        lambda t: [m.group(1) for m in BEFORE_TABLE.finditer(t)],
        ["orders", "a.b", "1", ".", "_x", " ", "table", "tables", "дом"],
    ),
    (
        "name after database",
        every(old.NAME_AFTER_DB),
        every(AFTER_DB),
        ["database", "db", "базе данных", " ", ":", "=", '"', "«", "sales", "x/y", "1"],
    ),
    (
        "row limit",
        first(old.ROW_LIMIT),
        first(sql._ROW_LIMIT),
        ["limit", "top", "row_limit", " ", "5", "10", "rows", "x"],
    ),
    (
        "minutes",
        first(old.MINUTES),
        first(maintenance._MINUTES),
        ["5", "30", " ", "min", "minutes", "m", "x"],
    ),
    (
        "because",
        old_tail(old.BECAUSE),
        new_tail(maintenance._BECAUSE),
        [*WORDS, "because", " of", "reason", ":", "due to", "потому что"],
    ),
    (
        "message",
        old_tail(old.MESSAGE),
        new_tail(git._MESSAGE),
        [*WORDS, "message", "msg", "сообщением", ":", "="],
    ),
    (
        "purpose",
        group1(old.PURPOSE),
        maintenance.purpose,
        [*WORDS, "for ", "an hour", "2 hours", "the next day", "a day", "minutes", "час", ";"],
    ),
    (
        "mentions",
        old.mentions,
        lambda t: [(m.start, m.role) for m in old.ENVS.mentions(t)],
        [
            "prod",
            "dev",
            "staging",
            "from ",
            "to ",
            "env ",
            "окружение ",
            "с ",
            "на ",
            " ",
            "-",
            "x",
            "İ",
            "ΑΣ",
        ],
    ),
    (
        "words before",
        per_keyword(old.words_before),
        per_keyword(names._before),
        ["the ", "my ", "our ", "Sales ", "demo ", "x ", "dashboard ", "is ", "  "],
    ),
    (
        "facts lines",
        old.FACTS_LINE.findall,
        facts._LINE.findall,
        ["a: 1\n", "b_c:  x y \n", "  c : z\n", "\n", "junk\n", "d:\tv\t\n"],
    ),
    (
        "html title",
        group1(old.HTML_TITLE),
        group1(error_responses._TITLE, "match"),
        ["<title>", "</title>", "<TITLE>", "a", "\n", "<", ">"],
    ),
    ("html tags", lambda t: old.HTML_TAG.sub(" ", t), kept_tags, ["<", ">", "a", "<>", "b"]),
    (
        "json fence",
        group1(old.JSON_FENCE),
        group1(salvage._FENCE, "match"),
        ["```", "json", "JSON", " ", "\n", "{", "}", "`", "x"],
    ),
]


@pytest.mark.parametrize(("name", "was", "now", "fragments"), ROWS, ids=[r[0] for r in ROWS])
def test_the_linear_pattern_reads_what_the_old_one_read(name, was, now, fragments):
    @settings(max_examples=400, deadline=None)
    @given(st.lists(st.sampled_from(fragments), max_size=14).map("".join))
    def same(text: str) -> None:
        assert now(text) == was(text), text

    same()
