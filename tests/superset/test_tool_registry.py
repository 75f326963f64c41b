"""The tools: each one's spec declared once in its family's spec module
(``app/policy/tools/<family>.py``), implemented once in its family's module
(``app/agent/tools/<family>.py``). (The catalog's rows against docs/contract.md:
tests/policy/test_catalog.py.)"""

from __future__ import annotations

import inspect
import sys
import typing
from typing import Any, get_args

import pytest

import app.policy
from app.agent.tools import ALL_TOOLS, FAMILIES, TOOL_CATALOG, TOOLS, join
from app.agent.tools.base import Family, ToolDeps
from app.policy import CardLine, Phrase
from app.policy.tools import FAMILIES as SPEC_FAMILIES
from app.policy.tools import join_specs
from app.policy.tools.base import NoArgs
from app.policy.tools.declare import SpecFamily
from app.vocab import Presentation
from tests.policy.test_catalog import DESIGN_TABLE, LONG_TASKS


def test_the_product_has_the_22_contract_tools_each_declared_and_implemented_once() -> None:
    assert set(DESIGN_TABLE) <= set(TOOLS)
    assert list(TOOLS) == list(TOOL_CATALOG) == list(ALL_TOOLS)  # the catalog's order
    assert TOOL_CATALOG is app.policy.TOOL_CATALOG  # policy's, re-exported
    declared = [name for family in SPEC_FAMILIES for name in family.specs]
    implemented = [name for family in FAMILIES for name in family.tools]
    assert len(declared) == len(set(declared)) == len(TOOLS)
    assert sorted(implemented) == sorted(declared)


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_tool_is_async_typed_by_its_args_model_and_lives_in_its_family(name: str) -> None:
    decl = TOOLS[name]
    assert decl.spec is TOOL_CATALOG[name]
    assert inspect.iscoroutinefunction(decl.fn) and decl.fn.__name__ == name
    hints = typing.get_type_hints(decl.fn)
    assert hints["args"] is decl.args_model and hints["deps"] is ToolDeps
    # its spec's home is its family's spec module, its implementation's its family module
    assert decl.fn.__module__ == f"app.agent.tools.{decl.family}"
    assert getattr(sys.modules[f"app.policy.tools.{decl.family}"], name) is decl.spec
    assert decl.description == TOOL_CATALOG[name].description  # what the model reads
    assert "\n" not in decl.description


def _sample(decl: Any) -> dict[str, Any]:
    """Arguments with every field set, as the guard passes them (validated, dumped)."""
    values: dict[str, Any] = {}
    for field, info in decl.args_model.model_fields.items():
        annotation = str(info.annotation)
        if "list" in annotation:
            values[field] = ["1", "2"]
        elif "dict" in annotation:
            values[field] = {"a": "b"}
        elif "int" in annotation:
            values[field] = 5
        else:
            values[field] = "x1"
    return decl.args_model.model_validate(values).model_dump(mode="json")


@pytest.mark.parametrize("name", sorted(TOOLS))
@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_card_line_fills_from_args_and_env(name: str, lang: str) -> None:
    decl = TOOLS[name]
    line = decl.card.render(_sample(decl), "prod-eu", lang)
    assert line and "{" not in line and "}" not in line
    if {"env", "dashboard_id"} & decl.card.fields():
        assert "prod-eu" in line or "x1" in line
    minimal = decl.card.render({}, None, lang)  # whatever is missing reads as empty
    assert minimal and "None" not in minimal


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_declared_execution_facts(name: str) -> None:
    decl, spec = TOOLS[name], TOOL_CATALOG[name]
    # docs/contract.md, decision 10: long tasks wait 600 s for their task; the rest use the default
    assert decl.long_task == (name in LONG_TASKS)
    assert spec.timeout_s == (600.0 if name in LONG_TASKS else None)
    # only the maintenance tools themselves run during a maintenance window
    assert decl.maintenance_exempt == (name in {"start_maintenance", "end_maintenance"})
    assert decl.presentation in get_args(Presentation)
    hints = decl.mcp_hints()
    assert hints["readOnlyHint"] == (decl.risk == "read")
    assert hints["destructiveHint"] == (decl.risk == "delete")
    assert spec.risk == decl.risk and spec.args_model is decl.args_model


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
    assert {n for n, d in TOOLS.items() if d.call_risk} == {
        "superset_execute_sql",
        "superset_create_dataset",
    }


def _toy_specs(name: str, tool_name: str = "toy") -> SpecFamily:
    specs = SpecFamily(name)
    specs.spec(
        tool_name,
        args=NoArgs,
        risk="read",
        description="A toy tool for the registry's own tests. Returns ok.",
        can=Phrase("play", "играть"),
        example=Phrase("toy", "игрушка"),
        card=CardLine(en="Toy", ru="Игрушка"),
    )
    return specs


def _toy_family(name: str, tool_name: str = "toy", *, implemented: bool = True) -> Family:
    family = Family(_toy_specs(name, tool_name))

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
