"""The tools: each one's spec declared once in its family's ``app/tools/<family>/spec.py``,
implemented once in its ``run.py`` (its view, if its own, in its ``view.py``). (The
catalog's rows against docs/contract.md: tests/policy/test_catalog.py.)"""

from __future__ import annotations

import inspect
import sys
import typing
from typing import Any, get_args

import pytest

import app.policy
from app.tools import TOOLS
from app.tools.args import NoArgs
from app.tools.catalog import FAMILIES, TOOL_CATALOG, join_specs
from app.tools.declare import Family
from app.tools.kit import Implementations, ToolDeps
from app.tools.registry import implementations, join
from app.vocab import Presentation
from tests.policy.test_catalog import DESIGN_TABLE, LONG_TASKS


def test_the_product_has_the_22_contract_tools_each_declared_and_implemented_once() -> None:
    assert set(DESIGN_TABLE) <= set(TOOLS)
    assert list(TOOLS) == list(TOOL_CATALOG)  # the catalog's order
    assert TOOL_CATALOG is app.policy.TOOL_CATALOG  # the catalog policy reads
    declared = [name for family in FAMILIES for name in family.specs]
    implemented = [name for runs in implementations(FAMILIES) for name in runs.tools]
    assert len(declared) == len(set(declared)) == len(TOOLS)
    assert sorted(implemented) == sorted(declared)


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_tool_is_async_typed_by_its_args_model_and_lives_in_its_family(name: str) -> None:
    tool = TOOLS[name]
    spec = tool.spec
    assert spec is TOOL_CATALOG[name]
    assert inspect.iscoroutinefunction(tool.fn) and tool.fn.__name__ == name
    hints = typing.get_type_hints(tool.fn)
    assert hints["args"] is spec.args_model and hints["deps"] is ToolDeps
    # one home: its spec in its family's spec.py, its implementation in its run.py, its
    # own view (if it has one rather than a generic one) in its view.py
    assert tool.fn.__module__ == f"app.tools.{spec.family}.run"
    assert getattr(sys.modules[f"app.tools.{spec.family}.spec"], name) is spec
    if tool.view is not None:
        assert tool.view.__module__ in (f"app.tools.{spec.family}.view", "app.views.diffs")
    assert "\n" not in spec.description  # what the model reads: one line


def _sample(spec: Any) -> dict[str, Any]:
    """Arguments with every field set, as the guard passes them (validated, dumped)."""
    values: dict[str, Any] = {}
    for field, info in spec.args_model.model_fields.items():
        annotation = str(info.annotation)
        if "list" in annotation:
            values[field] = ["1", "2"]
        elif "dict" in annotation:
            values[field] = {"a": "b"}
        elif "int" in annotation:
            values[field] = 5
        else:
            values[field] = "x1"
    return spec.args_model.model_validate(values).model_dump(mode="json")


@pytest.mark.parametrize("name", sorted(TOOLS))
@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_card_line_fills_from_args_and_env(name: str, lang: str) -> None:
    spec = TOOL_CATALOG[name]
    assert spec.card is not None
    line = spec.card.render(_sample(spec), "prod-eu", lang)
    assert line and "{" not in line and "}" not in line
    if {"env", "dashboard_id"} & spec.card.fields():
        assert "prod-eu" in line or "x1" in line
    minimal = spec.card.render({}, None, lang)  # whatever is missing reads as empty
    assert minimal and "None" not in minimal


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_declared_execution_facts(name: str) -> None:
    tool, spec = TOOLS[name], TOOL_CATALOG[name]
    # docs/contract.md, decision 10: long tasks wait 600 s for their task; the rest use the default
    assert spec.long_task == (name in LONG_TASKS)
    assert spec.timeout_s == (600.0 if name in LONG_TASKS else None)
    # only the maintenance tools themselves run during a maintenance window
    assert spec.maintenance_exempt == (name in {"start_maintenance", "end_maintenance"})
    assert spec.presentation in get_args(Presentation)
    hints = spec.mcp_hints()
    assert hints["readOnlyHint"] == (spec.risk == "read")
    assert hints["destructiveHint"] == (spec.risk == "delete")
    # what an undoable call changes is undone by its own tool's inverse, and only then
    assert (tool.inverse is not None) == (spec.undo == "undoable")


def test_which_tools_have_a_preflight_and_a_target_hook() -> None:
    assert {n for n, d in TOOLS.items() if d.preflight} == {
        "deploy_dashboard",
        "execute_migration",
        "superset_create_dataset",  # a dataset that exists already blocks it before the card
        "undo_change",  # drift refuses it before the card; the card lists what it restores
    }
    # the environment a call acts on when its arguments name none: the backup's, the change's
    assert {n for n, d in TOOLS.items() if d.resolve_target} == {"restore_backup", "undo_change"}
    assert {n for n, d in TOOLS.items() if d.exempt} == {"undo_change"}  # ending a window
    # the tools rated per call from the SQL they send (a virtual dataset's runs on renders)
    assert {n for n, d in TOOLS.items() if d.spec.call_risk} == {
        "superset_execute_sql",
        "superset_create_dataset",
    }


def _toy_specs(name: str, tool_name: str = "toy") -> Family:
    specs = Family(name)
    specs.spec(
        tool_name,
        args=NoArgs,
        risk="read",
        description="A toy tool for the registry's own tests. Returns ok.",
        en=("play", "toy", "Toy"),
        ru=("играть", "игрушка", "Игрушка"),
    )
    return specs


def _toy_family(name: str, tool_name: str = "toy", *, implemented: bool = True) -> Implementations:
    family = Implementations(_toy_specs(name, tool_name))

    async def toy(args: NoArgs, deps: ToolDeps) -> str:
        return "ok"

    toy.__name__ = tool_name
    if implemented:
        family.implements(tool_name)(toy)
    return family


def test_a_name_declared_in_two_families_is_refused() -> None:
    with pytest.raises(ValueError, match="'toy' is declared twice"):
        join((_toy_family("a"), _toy_family("b")))
    with pytest.raises(ValueError, match="'toy' is declared twice"):
        join_specs((_toy_specs("a"), _toy_specs("b")))


def test_a_spec_without_an_implementation_is_refused() -> None:
    with pytest.raises(ValueError, match=r"family 'a' has specs with no implementation: \['toy'\]"):
        join((_toy_family("a", implemented=False),))
