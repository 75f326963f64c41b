"""The docs hold: the README is a front page, every link and every name a doc gives leads
to something that exists in the repository, and the tables that restate the code (the
settings' defaults, the tool catalog) say what the code says.

Scanned: README.md, DEVELOPERS.md, tests/README.md and docs/*.md. Fenced code blocks are
not links, so links are read outside them; names (settings, routes, ``python -m``
modules) are read everywhere.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest

import app.api
from app.pages.audit import CSV_PATH
from app.policy import TOOL_CATALOG
from app.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted(
    [
        ROOT / "README.md",
        ROOT / "DEVELOPERS.md",
        ROOT / "tests" / "README.md",
        *(ROOT / "docs").glob("*.md"),
    ]
)
README_MAX_LINES = 150

FENCE = re.compile(r"^```.*?^```[^\n]*$", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\n]+)`")
REPO_PATH = re.compile(r"^(?:app|components|tests|bench|deploy|docs|assets|\.ci)/[\w./-]*$")
SETTING = re.compile(r"\bSS_TOOLS_[A-Z0-9_]+")
ROUTE = re.compile(r"\b(GET|POST|PATCH|DELETE|PUT) (/api/[^\s`),]*)")
MODULE = re.compile(r"python3? -m ([a-z_][\w.]*)")

#: SS_TOOLS_ names that are not settings of the product: the test suite's own switches, and
#: a shell variable the MCP docs use to hold a person's token.
NOT_SETTINGS = {"SS_TOOLS_REQUIRE_ALL", "SS_TOOLS_LLM_CACHE_DIR", "SS_TOOLS_TOKEN"}
NOT_SETTINGS_PREFIX = "SS_TOOLS_TEST_"


def text_of(doc: Path) -> str:
    return doc.read_text(encoding="utf-8")


def prose(doc: Path) -> str:
    """The doc without its fenced code blocks."""
    return FENCE.sub("", text_of(doc))


def rel(doc: Path) -> str:
    return str(doc.relative_to(ROOT))


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation out, spaces to hyphens."""
    text = heading.strip().lower().replace("`", "")
    kept = "".join(ch for ch in text if ch in " -_" or unicodedata.category(ch)[0] in ("L", "N"))
    return kept.replace(" ", "-")


def anchors(doc: Path) -> set[str]:
    return {slug(line.lstrip("#")) for line in prose(doc).splitlines() if line.startswith("#")}


# ---- the front page ---------------------------------------------------------------------


def test_the_readme_is_a_front_page():
    lines = text_of(ROOT / "README.md").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines"


def test_the_quick_start_is_two_commands_and_ci_runs_the_same_test_command():
    text = text_of(ROOT / "README.md")
    start = text.index("## Quick start")
    block = FENCE.search(text, start)
    assert block is not None
    commands = [ln.split("#")[0].strip() for ln in block.group(0).splitlines()[1:-1]]
    assert [c for c in commands if c] == ["python3 dev.py start", "python3 dev.py test"]
    ci = [ln.strip() for ln in text_of(ROOT / ".ci" / "run").splitlines()]
    assert "python3 dev.py test" in ci  # the README's test command, run as it is


def test_the_readme_indexes_every_page_of_the_manual():
    linked = {Path(t.partition("#")[0]).name for t in LINK.findall(prose(ROOT / "README.md"))}
    pages = {doc.name for doc in (ROOT / "docs").glob("*.md")}
    assert not pages - linked, f"docs/ pages the README does not link: {sorted(pages - linked)}"


# ---- links --------------------------------------------------------------------------------


@pytest.mark.parametrize("doc", DOCS, ids=rel)
def test_every_relative_link_leads_to_a_file_of_the_repository(doc: Path):
    broken = []
    for target in LINK.findall(prose(doc)):
        if re.match(r"^[a-z]+:", target):  # https:, mailto: ...
            continue
        path_part, _, anchor = target.partition("#")
        path = (doc.parent / path_part).resolve() if path_part else doc
        if not path.is_relative_to(ROOT):
            broken.append(f"{target}: outside the repository")
        elif not path.exists():
            broken.append(f"{target}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(f"{target}: no heading #{anchor} in {path.name}")
    assert not broken, f"{rel(doc)}: {broken}"


@pytest.mark.parametrize("doc", DOCS, ids=rel)
def test_no_doc_names_a_file_outside_the_repository(doc: Path):
    text = text_of(doc)
    assert "../shared" not in text and "/work/" not in text


def made_by_runs() -> set[str]:
    """The paths .gitignore names: what a run makes (``tests/screenshots/``) is absent from a
    fresh clone, so a doc may name it before it exists."""
    lines = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


@pytest.mark.parametrize("doc", DOCS, ids=rel)
def test_every_path_a_doc_names_exists(doc: Path):
    missing = []
    generated = made_by_runs()
    for span in CODE.findall(prose(doc)):
        name, _, test = span.partition("::")
        if not REPO_PATH.match(name) or any(c in span for c in "<>*{}…|") or name in generated:
            continue
        path = ROOT / name
        if not path.exists():
            missing.append(span)
        elif test and path.is_file():
            func = test.split("[")[0]
            if not re.search(rf"\b(def|class) {re.escape(func)}\b", text_of(path)):
                missing.append(span)
    assert not missing, f"{rel(doc)} names what does not exist: {missing}"


# ---- names the docs give ------------------------------------------------------------------


def setting_names() -> set[str]:
    return {f"SS_TOOLS_{name.upper()}" for name in Settings.model_fields}


@pytest.mark.parametrize("doc", DOCS, ids=rel)
def test_every_setting_a_doc_names_is_a_setting(doc: Path):
    known = setting_names() | NOT_SETTINGS
    named = set(SETTING.findall(text_of(doc)))
    unknown = {n for n in named - known if not n.startswith(NOT_SETTINGS_PREFIX)}
    assert not unknown, f"{rel(doc)} names settings that do not exist: {sorted(unknown)}"


def routes() -> set[tuple[str, str]]:
    """(method, path with its parameters as ``{}``) of every API router, and the CSV."""
    found = {("GET", CSV_PATH)}
    for info in pkgutil.iter_modules(app.api.__path__):
        router = getattr(importlib.import_module(f"app.api.{info.name}"), "router", None)
        for route in getattr(router, "routes", ()):
            for method in getattr(route, "methods", ()):
                found.add((method, re.sub(r"\{[^}]*\}", "{}", route.path)))
    return found


@pytest.mark.parametrize("doc", DOCS, ids=rel)
def test_every_route_a_doc_names_exists(doc: Path):
    known = routes()
    unknown = []
    for method, written in ROUTE.findall(text_of(doc)):
        bare = re.sub(r"\[.*$|\?.*$", "", written).rstrip(".:;")
        head, _, tail = bare.rpartition("/")
        for leaf in tail.split("|"):  # /api/agent/stream|resume|call
            path = re.sub(r"\{[^}]*\}", "{}", f"{head}/{leaf}" if head else bare)
            if (method, path) not in known:
                unknown.append(f"{method} {path}")
    assert not unknown, f"{rel(doc)} names routes that do not exist: {unknown}"


@pytest.mark.parametrize("doc", DOCS, ids=rel)
def test_every_module_a_doc_runs_exists(doc: Path):
    missing = []
    for module in MODULE.findall(text_of(doc)):
        if module.split(".")[0] not in ("app", "bench", "tests"):
            continue  # pytest, pip ...
        base = ROOT / module.replace(".", "/")
        if not (base.with_suffix(".py").is_file() or (base / "__main__.py").is_file()):
            missing.append(module)
    assert not missing, f"{rel(doc)} runs modules that do not exist: {missing}"


# ---- tables that restate the code -----------------------------------------------------------


def table_rows(doc: Path, first_cell: str) -> list[list[str]]:
    """The cells of every table row whose first cell matches ``first_cell``."""
    rows = []
    for line in prose(doc).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and re.fullmatch(first_cell, cells[0]):
            rows.append(cells)
    return rows


def same_default(written: str, default: Any) -> bool:
    """Whether a table's default cell says the setting's default."""
    if written == "—":
        return default is None
    code = re.fullmatch(r"`([^`]*)`", written)
    if code is None:
        return True  # words ("placeholder"): not a value to compare
    value = code.group(1)
    if isinstance(default, bool):
        return value in ("0", "1") and bool(int(value)) == default
    if isinstance(default, int | float):
        return float(value) == float(default)
    if isinstance(default, Path):
        return Path(value).expanduser() == default
    if isinstance(default, dict):
        return json.loads(value) == default
    return value == str(default)


def test_the_settings_table_says_every_settings_default():
    rows = table_rows(ROOT / "docs" / "configuration.md", r"`SS_TOOLS_[A-Z0-9_]+`")
    documented = {cells[0].strip("`"): cells[1] for cells in rows}
    assert set(documented) == setting_names()  # every setting, once, and no other
    fields = {f"SS_TOOLS_{n.upper()}": f for n, f in Settings.model_fields.items()}
    wrong = {
        name: written
        for name, written in documented.items()
        if not same_default(written, fields[name].get_default(call_default_factory=True))
    }
    assert not wrong, f"defaults that are not the code's: {wrong}"


def catalog_row(name: str) -> list[str]:
    spec = TOOL_CATALOG[name]
    contexts = "always" if name == "show_capabilities" else ", ".join(sorted(spec.affinity))
    args = [
        n if field.is_required() else f"{n}?" for n, field in spec.args_model.model_fields.items()
    ]
    return [
        f"`{name}`",
        spec.family,
        spec.risk,
        ", ".join(sorted(spec.roles)),
        contexts or "—",
        str(int(spec.timeout_s or Settings().tool_timeout_s)),
        ", ".join(args) or "—",
    ]


def test_the_contracts_tool_table_is_the_catalog():
    rows = table_rows(ROOT / "docs" / "contract.md", r"`[a-z_]+`")
    tools = [cells for cells in rows if len(cells) == 7]
    assert [cells[0].strip("`") for cells in tools] == list(TOOL_CATALOG)
    assert tools == [catalog_row(name) for name in TOOL_CATALOG]
