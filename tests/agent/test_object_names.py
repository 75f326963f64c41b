"""An argument naming a schema, table, dataset or database is checked by the tool's args
model (SQL Lab writes ``set search_path = "<schema>"`` unescaped), and a refusal names the
field: a tool error in a chat or over MCP, a 422 over the API. The SQL text itself is
capped at 100 000 characters."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from app.agent.core import RequestRefused
from app.agent.core.edits import args_messages
from app.agent.rules import default_policy
from app.events import ConfirmRequiredEvent, ErrorEvent, ToolStartEvent
from app.policy.sql_dialects import MAX_SQL_CHARS
from app.tools.catalog import TOOL_CATALOG
from tests.agent.scripted import call

INJECTION = 'public"; DROP TABLE orders; --'


def _args(tool: str, **values: Any) -> Any:
    return TOOL_CATALOG[tool].args_model.model_validate(values)


@pytest.mark.parametrize(
    ("tool", "values", "field"),
    [
        ("superset_execute_sql", {"sql": "SELECT 1", "schema": INJECTION}, "schema"),  # the probe
        ("superset_execute_sql", {"sql": "SELECT 1", "schema": "a.b"}, "schema"),  # no dots
        ("superset_execute_sql", {"sql": "SELECT 1", "schema": "my schema"}, "schema"),  # spaces
        ("superset_execute_sql", {"sql": "SELECT 1", "schema": "1st"}, "schema"),  # leading digit
        ("superset_execute_sql", {"sql": "SELECT 1", "schema": "s" * 129}, "schema"),  # too long
        ("superset_execute_sql", {"sql": "SELECT 1", "schema": "pub\nlic"}, "schema"),  # newline
        ("superset_execute_sql", {"sql": "SELECT 1", "database": "x'; --"}, "database"),  # quote
        ("superset_execute_sql", {"sql": "S" * (MAX_SQL_CHARS + 1)}, "sql"),  # over 100 000
        ("superset_explore_database", {"database": "1", "schema": 'x"y'}, "schema"),  # quote
        ("superset_explore_database", {"database": "1", "table": "t;drop"}, "table"),  # semicolon
        ("superset_create_dataset", {"database": "1", "table_name": "o rders"}, "table_name"),
        ("superset_create_dataset", {"database": "1", "table_name": "t", "schema": ""}, "schema"),
        ("execute_migration",  # a database mapping names databases too
         {"dashboard_ids": ["1"], "target_env": "prod", "database_mapping": {"a": 'b"'}},
         "database_mapping"),
    ],
)  # fmt: skip
def test_names_that_are_not_plain_are_refused_by_the_args_model(
    tool: str, values: dict[str, Any], field: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        _args(tool, **values)
    assert caught.value.errors()[0]["loc"][0] == field


@pytest.mark.parametrize(
    ("tool", "values"),
    [
        ("superset_execute_sql", {"sql": "SELECT 1", "schema": "public"}),  # the usual schema
        ("superset_execute_sql", {"sql": "SELECT 1", "schema": "_stage$1"}),  # _ and $
        ("superset_execute_sql", {"sql": "SELECT 1", "schema": "продажи"}),  # any script
        ("superset_execute_sql", {"sql": "SELECT 1", "database": "Sales DB (EU)"}),  # a name
        ("superset_execute_sql", {"sql": "SELECT 1", "database": 3}),  # an id (coerced)
        ("superset_execute_sql", {"sql": "S" * MAX_SQL_CHARS}),  # exactly at the cap
        ("superset_explore_database", {"database": "examples", "schema": "main", "table": "t"}),
        ("superset_create_dataset", {"database": "1", "table_name": "orders_v2"}),
    ],
)
def test_plain_names_pass(tool: str, values: dict[str, Any]) -> None:
    _args(tool, **values)


def test_the_refusal_says_why_in_english_and_russian() -> None:
    policy = default_policy()
    args = {"sql": "SELECT 1", "schema": INJECTION}
    en = args_messages(policy, "superset_execute_sql", args)["schema"]
    ru = args_messages(policy, "superset_execute_sql", args, "ru")["schema"]
    assert en.startswith("must be a plain identifier") and "128" in en
    assert ru.startswith("Нужен простой идентификатор") and "128" in ru


async def test_a_schema_injection_is_a_tool_error_naming_the_field_and_nothing_runs(
    harness: Any,
) -> None:
    log: list[Any] = []
    harness.use_proposal(
        call("superset_execute_sql", sql="SELECT 1", schema=INJECTION, env_id="prod"), log
    )
    events = await harness.turn("run select 1 in that schema", role="analyst", user="ana")
    error = next(e for e in events if isinstance(e, ErrorEvent))
    assert error.code == "invalid_arguments"
    assert "schema: must be a plain identifier" in error.message
    assert not any(isinstance(e, ToolStartEvent | ConfirmRequiredEvent) for e in events)
    assert log == []
    rows = harness.audit_rows(kind="failed")
    assert rows and "schema" in rows[0]["reason"]


async def test_an_edited_schema_is_422_naming_the_field_and_keeps_the_card(harness: Any) -> None:
    log: list[Any] = []
    harness.use_proposal(
        call("superset_execute_sql", sql="UPDATE t SET a = 1", schema="public", env_id="dev"),
        log,
    )
    conf = next(e for e in await harness.turn("fix a") if isinstance(e, ConfirmRequiredEvent))
    edited = {"sql": "UPDATE t SET a = 1", "schema": INJECTION, "env_id": "dev"}
    with pytest.raises(RequestRefused) as caught:
        await harness.answer(conf.confirmation_id, "confirm", args=edited)
    assert caught.value.status == 422 and caught.value.error == "invalid_args"
    assert caught.value.reason.startswith("schema: must be a plain identifier")
    assert log == []
