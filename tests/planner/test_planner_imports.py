"""The planner is one model among others (docs/contract.md, "What never imports what"): it sees
messages and bound tools only, so it imports no core module and no tool, and no core
module or tool imports it. Read from the source, so a new import is caught before the
board is redrawn."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[2] / "app"
PLANNER = APP / "planner"
# what a model may know of the product: the ToolSpec type, the typed facts, the page's
# block markers, the catalog of sentences, and the leaf vocabulary
ALLOWED = {"app.policy", "app.facts", "app.context", "app.i18n", "app.text", "app.vocab"}


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every ``import``/``from … import`` of ``path``."""
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found += [(a.name, []) for a in node.names]
    return found


@pytest.mark.parametrize(
    "path", sorted(PLANNER.rglob("*.py")), ids=lambda p: str(p.relative_to(PLANNER))
)
def test_the_planner_imports_only_what_a_model_may_know(path: Path) -> None:
    for module, names in _imports(path):
        if not (module == "app" or module.startswith("app.")):
            continue
        if module == "app.planner" or module.startswith("app.planner."):
            continue
        assert module in ALLOWED, f"{path.name} imports {module}"
        if module == "app.policy":
            assert names == ["ToolSpec"], f"{path.name}: the ToolSpec type only, not {names}"


@pytest.mark.parametrize(
    "path",
    sorted(p for part in ("agent", "tools", "screen") for p in (APP / part).rglob("*.py")),
    ids=lambda p: str(p.relative_to(APP)),
)
def test_no_core_module_tool_or_screen_imports_the_planner(path: Path) -> None:
    for module, names in _imports(path):
        assert not module.startswith("app.planner"), f"{path} imports {module}"
        assert not (module == "app" and "planner" in names), f"{path} imports app.planner"
