"""The offline planner browses a database in steps: tables asked for and one schema shown
list that schema's tables in the same turn, several schemas are asked about in words and
a pick lists the tables of the one picked (in the request's environment), and a browse
that asked for no tables ends with the schemas."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, ToolMessage

from tests.planner.planner_turns import calls, planner, system, turn


def _schemas(*names: str) -> str:
    db = {"id": 1, "name": "Sales"}
    return json.dumps({"env": "dev", "database": db, "level": "schemas", "schemas": list(names)})


def _explored(request: str, result: str) -> tuple[Any, Any]:
    """The planner's step after ``superset_explore_database`` answered ``result``."""
    model = planner()
    messages: list[Any] = [system(), HumanMessage(request)]
    proposal = model.invoke(messages)
    call = proposal.tool_calls[0]
    assert (call["name"], call["args"].get("schema")) == ("superset_explore_database", None)
    messages += [proposal, ToolMessage(result, tool_call_id=call["id"])]
    return model, model.invoke(messages)


def test_tables_asked_for_and_one_schema_shown_lists_its_tables_in_the_same_turn() -> None:
    _, step = _explored("покажи таблицы в базе Sales", _schemas("main"))
    assert [(c["name"], c["args"]) for c in step.tool_calls] == [
        ("superset_explore_database", {"database": "Sales", "env_id": "dev", "schema": "main"})
    ]
    assert step.text == "Смотрю базу Sales схему main…"


def _tables(database: str, schema: str) -> str:
    tables = [{"name": "orders"}, {"name": "sales"}]
    return json.dumps(
        {"env": "prod", "database": {"name": database}, "level": "tables", "schema": schema,
         "tables": tables}
    )  # fmt: skip


@pytest.mark.parametrize(
    ("request_text", "question", "pick", "schema"),
    [
        (
            "show the tables in database Sales on prod",
            "Sales has 2 schemas. Tables of which one?\n\n- main\n- public",
            "schema public in database Sales",
            "public",
        ),
        (
            "покажи таблицы в базе Sales на проде",
            "В базе Sales схем: 2. Таблицы какой из них показать?\n\n- main\n- public",
            "схема main в базе Sales",
            "main",
        ),
    ],
)
def test_tables_asked_for_and_several_schemas_shown_asks_which_and_a_pick_lists_them(
    request_text, question, pick, schema
) -> None:
    history: list[Any] = []
    schemas = json.dumps(
        {"env": "prod", "database": {"id": 1, "name": "Sales"}, "level": "schemas",
         "schemas": ["main", "public"]}
    )  # fmt: skip
    first = turn(history, request_text, schemas)
    assert calls(first) == [("superset_explore_database", {"database": "Sales", "env_id": "prod"})]
    assert first[-1].text == question
    replies = turn(history, pick, _tables("Sales", schema))
    expected = {"database": "Sales", "env_id": "prod", "schema": schema}  # the request's env
    assert calls(replies) == [("superset_explore_database", expected)]
    assert replies[-1].tool_calls == [] and "orders" in replies[-1].text


def test_a_browse_that_asked_for_no_tables_ends_with_the_schemas() -> None:
    _, step = _explored("explore database Sales", _schemas("main"))
    assert step.tool_calls == [] and step.text == "Database Sales has 1 schema: main."
