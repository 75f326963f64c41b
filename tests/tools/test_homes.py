"""One home per tool: outside the offline planner (whose knowledge of a family is
``app/planner/tools/<family>.py``, held by the planner's own tests), a tool is named only in
its family's folder — its ``spec.py``, ``run.py`` and ``view.py``. Policy, the views, the
core, the doors and the components name none: they read what a spec says (its roles,
pages, what it serves or finds). Read from the source, so a new name is caught at once."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.tools.catalog import TOOL_CATALOG

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = sorted(
    p
    for folder in ("app", "components")
    for p in (ROOT / folder).rglob("*")
    if p.suffix in {".py", ".toml"} and "__pycache__" not in p.parts
)
PLANNER = ROOT / "app" / "planner"


def _naming(name: str) -> set[str]:
    word = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
    return {
        str(p.relative_to(ROOT))
        for p in PRODUCT
        if PLANNER not in p.parents and word.search(p.read_text(encoding="utf-8"))
    }


@pytest.mark.parametrize("name", list(TOOL_CATALOG))
def test_a_tool_is_named_only_in_its_familys_folder(name: str) -> None:
    home = {f"app/tools/{TOOL_CATALOG[name].family}/{m}.py" for m in ("spec", "run", "view")}
    assert _naming(name) <= home, f"{name} is named outside its home: {_naming(name) - home}"


@pytest.mark.parametrize("folder", ["app/policy", "app/views"])
def test_policy_and_the_views_name_no_tool(folder: str) -> None:
    named = {n: _naming(n) for n in TOOL_CATALOG}
    assert not {n: f for n, fs in named.items() for f in fs if f.startswith(folder)}
