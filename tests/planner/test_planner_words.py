"""The planner's words have two homes. A tool family's answer sentences are its own table,
``SAID`` in its file of ``app/planner/tools/`` (or the ``<family>_answers.py`` beside it);
``[planner]`` of ``app/strings.toml`` holds the engine's sentences and the pieces several
families share. Each table is held as the catalog is (``tests/test_i18n.py``): English and
Russian, neither empty, with the same placeholders; and every sentence in it is said."""

from __future__ import annotations

import ast
import importlib
import re
import string
from pathlib import Path

import pytest

from app.i18n import catalog
from app.planner import tools
from app.tools.catalog import TOOL_CATALOG

PLANNER = Path(tools.__file__).resolve().parents[1]
FAMILY_DIR = PLANNER / "tools"
SOURCES = sorted(PLANNER.rglob("*.py"))


def _table(path: Path) -> dict[str, tuple[str, str]] | None:
    return getattr(importlib.import_module(f"app.planner.tools.{path.stem}"), "SAID", None)


TABLES = {p.name: t for p in sorted(FAMILY_DIR.glob("*.py")) if (t := _table(p)) is not None}


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def _is_the_table(node: ast.stmt) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return any(isinstance(t, ast.Name) and t.id == "SAID" for t in targets)


def _key_pattern(key: ast.JoinedStr) -> re.Pattern[str]:
    """A key written as an f-string: its text as written, each ``{…}`` a word."""
    parts = [re.escape(str(v.value)) if isinstance(v, ast.Constant) else r"\w+" for v in key.values]
    return re.compile("".join(parts))


def _said(path: Path, keys: set[str]) -> set[str]:
    """The ``keys`` that ``path`` says: written out as a string anywhere but in its own
    table, or matched by an f-string in a ``say`` call's key (``f"health_{state}"``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    table = {id(n) for stmt in tree.body if _is_the_table(stmt) for n in ast.walk(stmt)}
    written = {
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in table
    }
    patterns = [
        _key_pattern(f)
        for call in ast.walk(tree)
        if isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id in ("say", "_say")
        and call.args
        for f in ast.walk(call.args[0])
        if isinstance(f, ast.JoinedStr)
    ]
    return {k for k in keys if k in written or any(p.fullmatch(k) for p in patterns)}


def _family_of() -> dict[Path, str]:
    """Each file of ``app/planner/tools/`` -> its family: a family's file, and the files of
    that folder it imports (its answers moved beside it)."""
    family: dict[Path, str] = {p: p.stem for p in FAMILY_DIR.glob("*.py")}
    for module in tools.FAMILIES:
        path = Path(module.__file__ or "")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or node.module is None:
                continue
            if node.module == "app.planner.tools":  # from app.planner.tools import x_answers
                imported = [alias.name for alias in node.names]
            elif node.module.startswith("app.planner.tools."):
                imported = [node.module.rsplit(".", 1)[-1]]
            else:
                imported = []
            family.update({FAMILY_DIR / f"{name}.py": path.stem for name in imported})
    return family


def test_the_families_with_answers_have_tables_of_their_own():
    assert {"backup.py", "dashboard_answers.py", "meta.py", "sql_answers.py"} <= set(TABLES)
    assert all(TABLES.values())


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_sentence_of_a_familys_table_has_english_and_russian_with_the_same_placeholders(
    name,
):
    for key, pair in TABLES[name].items():
        assert isinstance(pair, tuple) and len(pair) == 2, key
        en, ru = pair
        assert isinstance(en, str) and isinstance(ru, str), key
        assert en.strip() and ru.strip(), key
        assert _fields(en) == _fields(ru), key  # said(pair, lang, **values) fills both alike


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_sentence_of_a_familys_table_is_said_by_its_file(name):
    table = set(TABLES[name])
    assert _said(FAMILY_DIR / name, table) == table


def test_a_sentence_has_one_home():
    homes: dict[str, list[str]] = {}
    for name, table in TABLES.items():
        for key in table:
            homes.setdefault(key, []).append(name)
    for key in catalog("planner"):
        homes.setdefault(key, []).append("app/strings.toml")
    assert {k: v for k, v in homes.items() if len(v) > 1} == {}


def test_the_catalog_keeps_the_engines_sentences_and_those_several_families_share():
    """A ``[planner]`` sentence that one family alone says belongs in its table."""
    family = _family_of()
    keys = set(catalog("planner"))
    saying = {path: _said(path, keys) for path in SOURCES}
    for key in sorted(keys):
        users = [path for path, said in saying.items() if key in said]
        engine = [p for p in users if FAMILY_DIR not in p.parents]
        families = {family[p] for p in users if FAMILY_DIR in p.parents}
        assert users, f"{key} is said nowhere"
        assert engine or len(families) > 1, f"{key} is said by the {families} family alone"


@pytest.mark.parametrize("name", sorted(TABLES))
def test_no_key_of_a_familys_table_names_a_tool(name):
    assert [k for k in TABLES[name] if any(tool in k for tool in TOOL_CATALOG)] == []
