"""Each tool's offline knowledge has one home: its family's file in
``app/planner/tools/``. The planner's engine names no tool, its sentences come from the
catalog and a family's from its table (no inline ``tr(lang, en, ru)``: the tables are held
in ``test_planner_words.py``), and a tool's entry is all it takes to phrase, answer about
and look up for a tool."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from types import MappingProxyType

import pytest

from app.i18n import catalog
from app.planner import intents, tools
from app.planner.actions import doing, not_doing, spelled_out
from app.planner.answers import report
from app.planner.knowledge import Need, ToolKnowledge, row
from app.planner.results import read_result
from app.planner.slots import CallText
from app.planner.tools import KNOWLEDGE, knowledge
from app.tools.catalog import TOOL_CATALOG

ROOT = Path(__file__).resolve().parents[2]
PLANNER = ROOT / "app" / "planner"
SOURCES = [*(ROOT / "app").rglob("*.py"), *(ROOT / "components").rglob("*.py")]


def _naming(tool: str) -> list[str]:
    """The planner's files that name ``tool`` as a word (as ``grep -rlw`` does)."""
    word = re.compile(rf"(?<!\w){re.escape(tool)}(?!\w)")
    return sorted(
        str(p.relative_to(ROOT))
        for p in PLANNER.rglob("*")
        if p.suffix in (".py", ".toml") and word.search(p.read_text(encoding="utf-8"))
    )


@pytest.mark.parametrize("tool", sorted(TOOL_CATALOG))
def test_a_tool_is_named_in_its_family_file_only(tool):
    family = TOOL_CATALOG[tool].family
    assert _naming(tool) == [f"app/planner/tools/{family}.py"]


@pytest.mark.parametrize("family", tools.FAMILIES, ids=lambda f: f.__name__.rsplit(".", 1)[-1])
def test_a_family_file_knows_exactly_the_tools_of_its_family(family):
    name = family.__name__.rsplit(".", 1)[-1]
    declared = {t for t, spec in TOOL_CATALOG.items() if spec.family == name}
    assert {entry.name for entry in family.TOOLS} == declared


def _calls_named(path: Path, name: str) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name
    ]


def test_no_sentence_is_written_inline_as_a_language_pair():
    found = [f"{p.relative_to(ROOT)}:{n}" for p in SOURCES for n in _calls_named(p, "tr")]
    assert found == []


@pytest.mark.parametrize("path", sorted((PLANNER / "tools").glob("*.py")), ids=lambda p: p.name)
def test_a_family_file_never_branches_on_the_language(path):
    """A tool's own words are data (its call's five forms, its family's table of answer
    sentences): the language picks among them in one place, not in a family's code."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    compared = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Compare)
        and any(isinstance(n, ast.Name) and n.id == "lang" for n in [node.left, *node.comparators])
    ]
    assert compared == []


@pytest.mark.parametrize(
    "section", ["planner", "planner_arg_names", "planner_task_status", "planner_task_states"]
)
def test_no_planner_catalog_key_names_a_tool(section):
    keys = [k for k in catalog(section) if any(tool in k for tool in TOOL_CATALOG)]
    assert keys == []


def test_two_intent_rows_with_one_order_are_refused(monkeypatch):
    """The table's order is the rows' ``order``: a tie would leave it to chance."""
    twins = {
        "a_tool": ToolKnowledge("a_tool", rows=(row(5, [r"\bfoo\b"]),)),
        "b_tool": ToolKnowledge("b_tool", rows=(row(5, [r"\bbar\b"]),)),
    }
    monkeypatch.setattr(intents, "KNOWLEDGE", twins)
    with pytest.raises(ValueError, match="share an order"):
        intents._table()


def test_the_intent_table_runs_from_the_most_specific_row_to_the_most_generic():
    rows = sorted((r.order, k.name) for k in KNOWLEDGE.values() for r in k.rows)
    table = intents.INTENTS
    assert len(table) == len(rows)
    assert table[0].tool == "undo_change"  # "undo the delete" is an undo, never a delete
    assert table[-1].tool == "search_dashboards"  # "find", "show", "dashboards": last
    nothing = [i for i, row in enumerate(table) if row.tool == intents.NO_TOOL]
    backup = [i for i, row in enumerate(table) if row.tool == "run_backup"]
    assert nothing and nothing[0] < backup[0]  # "delete backup X" never takes a backup


def test_one_entry_phrases_answers_and_looks_up_for_a_new_tool(monkeypatch):
    """A 23rd tool's offline phrasing is one entry: its call said five ways, its answer,
    and the dashboard it names looked up first."""
    entry = ToolKnowledge(
        "pin_dashboard",
        phrase=CallText(
            doing=("pinning {d}{env}", "закрепляю {acc}{env}"),
            ru_noun="закрепление {gen}{env}",
            request=("pin {d}{env}", "закрепи {acc}{env}"),
        ),
        report=lambda args, result, lang: f"Pinned #{result.get('id')}.",
        need=Need("dashboard", "dashboard_id"),
    )
    monkeypatch.setattr(tools, "KNOWLEDGE", MappingProxyType({**KNOWLEDGE, entry.name: entry}))
    args = {"dashboard_id": 7, "env_id": "dev"}
    assert knowledge("pin_dashboard") is entry
    assert doing("pin_dashboard", args, "en") == "Pinning dashboard 7 in dev…"
    assert doing("pin_dashboard", args, "ru") == "Закрепляю дашборд 7 на dev…"
    assert not_doing("pin_dashboard", args, "ru") == "закрепление дашборда 7 на dev"
    assert spelled_out("pin_dashboard", args, "en") == "pin dashboard 7 in dev"
    assert report("pin_dashboard", args, read_result('{"id": 7}'), "en") == "Pinned #7."


def test_a_tool_the_planner_does_not_know_has_an_empty_entry():
    entry = knowledge("no_such_tool")
    assert entry == ToolKnowledge("no_such_tool")
    assert doing("no_such_tool", {}, "en", "do a thing") == "Do a thing…"
