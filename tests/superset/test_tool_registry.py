"""The tool declarations: each tool declared once in its family module, the catalog
assembled from them. (The catalog's rows against DESIGN.md: tests/policy/test_catalog.py.)"""

from __future__ import annotations

import inspect
import typing
from typing import Any, get_args

import pytest

from app.agent.tools import ALL_TOOLS, FAMILIES, TOOL_CATALOG, TOOLS, join
from app.agent.tools.base import NoArgs, ToolDeps
from app.agent.tools.declare import Family
from app.policy import CardLine, Phrase
from app.vocab import Presentation
from tests.policy.test_catalog import DESIGN_TABLE, LONG_TASKS


def test_the_product_has_the_22_contract_tools_each_declared_once() -> None:
    assert set(DESIGN_TABLE) <= set(TOOLS)
    assert set(TOOLS) == set(TOOL_CATALOG) == set(ALL_TOOLS)
    declared = [name for family in FAMILIES for name in family.tools]
    assert len(declared) == len(set(declared)) == len(TOOLS)


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_tool_is_async_typed_by_its_args_model_and_documented(name: str) -> None:
    decl = TOOLS[name]
    assert inspect.iscoroutinefunction(decl.fn)
    hints = typing.get_type_hints(decl.fn)
    assert hints["args"] is decl.args_model and hints["deps"] is ToolDeps
    assert decl.fn.__module__ == f"app.agent.tools.{decl.family}"  # its home is its family
    assert decl.description == inspect.cleandoc(decl.fn.__doc__ or "")
    assert TOOL_CATALOG[name].description == " ".join(decl.description.split())


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
    # DESIGN decision 10: long tasks wait 600 s for their task; the rest use the default
    assert decl.long_task == (name in LONG_TASKS)
    assert spec.timeout_s == (600.0 if name in LONG_TASKS else None)
    # only the maintenance tools themselves run during a maintenance window
    assert decl.maintenance_exempt == (name in {"start_maintenance", "end_maintenance"})
    assert decl.presentation in get_args(Presentation)
    hints = decl.mcp_hints()
    assert hints["readOnlyHint"] == (decl.risk == "read")
    assert hints["destructiveHint"] == (decl.risk == "delete")
    assert spec.risk == decl.risk and spec.args_model is decl.args_model


def test_which_tools_have_a_preflight_and_only_restore_a_target_hook() -> None:
    assert {n for n, d in TOOLS.items() if d.preflight} == {
        "deploy_dashboard",
        "execute_migration",
        "superset_create_dataset",  # a dataset that exists already blocks it before the card
    }
    assert {n for n, d in TOOLS.items() if d.resolve_target} == {"restore_backup"}
    assert {n for n, d in TOOLS.items() if d.call_risk} == {"superset_execute_sql"}


def _toy_family(name: str, tool_name: str = "toy") -> Family:
    family = Family(name)

    async def toy(args: NoArgs, deps: ToolDeps) -> str:
        """A toy tool for the registry's own tests."""
        return "ok"

    toy.__name__ = tool_name
    family.tool(
        args=NoArgs,
        risk="read",
        can=Phrase("play", "играть"),
        example=Phrase("toy", "игрушка"),
        card=CardLine(en="Toy", ru="Игрушка"),
    )(toy)
    return family


def test_a_name_declared_in_two_families_is_refused() -> None:
    with pytest.raises(ValueError, match="'toy' is declared twice"):
        join((_toy_family("a"), _toy_family("b")))


def test_a_declaration_needs_an_async_documented_function_with_a_new_name() -> None:
    family = _toy_family("a")
    declare = family.tool(
        args=NoArgs,
        risk="read",
        can=Phrase("t", "т"),
        example=Phrase("t", "т"),
        card=CardLine(en="T", ru="T"),
    )

    async def undocumented(args: NoArgs, deps: ToolDeps) -> str:
        return "x"

    def blocking(args: NoArgs, deps: ToolDeps) -> str:
        """Not async."""
        return "x"

    with pytest.raises(ValueError, match="declared twice in family 'a'"):
        declare(family.tools["toy"].fn)
    with pytest.raises(ValueError, match="needs a docstring"):
        declare(undocumented)
    with pytest.raises(TypeError, match="must be an async function"):
        declare(blocking)  # type: ignore[arg-type]
