"""The offline planner's final answers: outcomes explained in the person's language from
the refusal's facts (a cancellation acknowledged once; the way on is the core's offer, not
text), results summarised in one or two sentences, lists after a blank line."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, ToolMessage

from tests.planner.planner_turns import DASHBOARD_PAGE, after_tool, planner, refused, system


# --- final answers ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("result", "request_text", "expected", "absent"),
    [
        # cancelled by a Russian speaker: one sentence naming the call
        (
            refused("cancelled"),
            "задеплой на прод",
            "Вы отменили деплой дашборда 42 на prod.",
            "Cancel",
        ),
        # cancelled with a reason, in English
        (
            refused("cancelled", reason="wrong target"),
            "deploy to prod",
            "Cancelled — not deploying dashboard 42 to prod: wrong target.",
            "Вы",
        ),
        # a failure explains and suggests a next step
        ("ERROR: Superset timed out after 30 s", "deploy to prod", "try again", None),
        # a write whose outcome is unknown points at the task status
        ("ERROR: Operation status unknown — check Superset", "deploy", "status of your", None),
        # a guard denial names the request and the role it needs, in Russian
        (
            refused("permission_denied", role="analyst", required_role="admin"),
            "задеплой на прод",
            "Для «задеплой дашборд 42 на prod» нужна роль admin, а у вас — analyst.",
            "requires",
        ),
        # the guard's argument check: ask for the details
        (
            refused("invalid_arguments", errors=["target_env: Field required"]),
            "deploy it",
            "I couldn't deploy a dashboard to another environment: target\\_env: Field required. "
            "Some details were missing or invalid",
            None,
        ),
        # a write refused during a maintenance window
        (
            refused("maintenance", env_id="prod", reason="upgrade"),
            "deploy",
            "prod is in a maintenance window (upgrade)",
            None,
        ),
        # the database's own error, passed on by SQL Lab with a 500: the query is wrong,
        # Superset is not down
        (
            "ERROR: SQL Lab refused the query: Superset 'dev' POST /api/v1/sqllab/execute/ "
            "failed (500): sqlite error: no such table: nonexistent_table",
            "выполни select * from nonexistent_table",
            "База данных отклонила запрос: проверьте имена таблиц и колонок",
            "недоступен",
        ),
        # … but a connection failure on the way still says Superset is unreachable
        (
            "ERROR: SQL Lab refused the query: Superset 'dev' POST /api/v1/sqllab/execute/ "
            "failed: connection refused",
            "run select 1",
            "Superset seems unreachable",
            "rejected",
        ),
        (
            "ERROR: SQL Lab refused the query (database 'Sales' does not allow DML "
            "statements): DML not allowed",
            "run delete from sales",
            "does not allow statements that change data",
            "unreachable",
        ),
        # the preflight's problem, said once (not "found problems: preflight found problems")
        (
            refused("preflight_failed", errors=["a dataset 'sales' already exists"]),
            "создай датасет sales",
            "нашла проблемы: a dataset 'sales' already exists.",
            "preflight",
        ),
        # a plain-text result that merely starts with a word and a colon is not an error
        ("SQL: select 1", "format select 1", "SQL: select 1", "failed"),
    ],
)
def test_final_answer_explains_outcomes_in_the_users_language(
    result, request_text, expected, absent
):
    text = after_tool(result, request_text)
    assert expected in text
    if absent:
        assert absent not in text


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        (
            "delete this dashboard",
            "On a dashboard page I can't delete a dashboard: the page's context leaves it out.",
        ),
        (
            "удали этот дашборд",
            "На странице дашборда я не могу удалить дашборд: контекст страницы это исключает.",
        ),
    ],
)
def test_not_available_answer_says_which_page_leaves_the_tool_out_in_the_users_language(
    request_text, expected
):
    """The way on (leaving the page's context) is an offer the core puts on the events: the
    answer writes no request to send."""
    model = planner(["search_dashboards", "get_health_summary"])  # a dashboard page's set
    messages = [system(page=DASHBOARD_PAGE), HumanMessage(request_text)]
    proposal = model.invoke(messages)
    call = proposal.tool_calls[0]
    assert (call["name"], call["args"]) == (
        "delete_dashboard",
        {"dashboard_id": "42", "env_id": "prod"},
    )
    refusal = refused("not_available", "delete_dashboard", args=call["args"], page="dashboard")
    answer = model.invoke([*messages, proposal, ToolMessage(refusal, tool_call_id=call["id"])])
    assert answer.tool_calls == []
    assert answer.text == expected


def test_cancelled_call_is_acknowledged_once_and_not_retried():
    model = planner()
    messages = [system(), HumanMessage("delete dashboard 7 in prod")]
    proposal = model.invoke(messages)
    call = proposal.tool_calls[0]
    reply = model.invoke(
        [
            *messages,
            proposal,
            ToolMessage(refused("cancelled", reason="wrong one"), tool_call_id=call["id"]),
        ]
    )
    assert reply.tool_calls == []
    assert reply.text == "Cancelled — not deleting dashboard 7 in prod: wrong one."


def test_final_answer_counts_search_results_without_listing_them():
    items = [{"id": i, "title": f"Sales {i}"} for i in range(8)]
    result = {"env": "dev", "count": 8, "page": 0, "page_size": 25, "dashboards": items}
    text = after_tool(json.dumps(result), "find sales dashboards", "search_dashboards")
    assert text == "Found 8 dashboards in dev."
    assert "Sales 0" not in text


def _broken(dashboard: dict[str, Any], reason: str, charts: list[dict[str, Any]]) -> str:
    """A health report of a broken dashboard with one failing chart."""
    return json.dumps(
        {
            "env": "dev",
            "dashboard": dashboard,
            "verdict": "broken",
            "reasons": [reason],
            "charts": charts,
            "stale_datasets": [],
        }
    )


def test_final_answer_says_what_is_broken_in_a_health_report():
    charts = [{"id": 12, "status": "error"}, {"id": 13, "status": "ok"}]
    report = _broken({"id": 7, "title": "Sales_demo"}, "chart 'Revenue' (id 12) fails: 500", charts)
    text = after_tool(report, "check health", "get_health_summary")
    assert text == (
        "“Sales\\_demo” (#7) in dev is broken: 1 of 2 charts failing. "
        "First: chart 'Revenue' (id 12) fails: 500."
    )


def test_a_health_report_in_russian_names_the_failing_chart_in_russian():
    failing = {"id": 7, "name": "Refund Total (broken)", "status": "error", "error": "no column"}
    report = _broken(
        {"id": 3, "title": "Ops Broken Demo"},
        "график «Refund Total (broken)» (id 7) не загружается: no column",  # a Russian turn's
        [{"id": 6, "name": "Orders", "status": "ok"}, failing],
    )
    text = after_tool(report, "проверь здоровье", "get_health_summary")
    assert text.endswith(
        "Первая проблема: график «Refund Total (broken)» (id 7) не загружается: no column."
    )
    assert "fails" not in text and "chart '" not in text


def test_final_answer_passes_plain_text_results_through():
    text = after_tool("Found 3 items: a, b, c.", "list backups", "list_backups")
    assert "Found 3 items: a, b, c." in text


def test_final_answer_is_in_russian_for_a_russian_turn():
    result = {"env": "dev", "count": 0, "dashboards": []}
    text = after_tool(json.dumps(result), "найди дашборды продаж", "search_dashboards")
    assert text == "Дашбордов на dev нет."


@pytest.mark.parametrize(
    ("request_text", "expected", "everything"),
    [
        (
            "найди дашборды про продажи на dev",
            "Дашбордов по «продаж» на dev нет. Возможно, в названиях это сказано иначе: "
            "их покажет список всех дашбордов на dev.",
            "покажи все дашборды в dev",
        ),
        (
            "find dashboards about revenue in dev",
            "No dashboards match “revenue” in dev. Titles may say it in other words: "
            "the list of all dashboards in dev shows them.",
            "list all dashboards in dev",
        ),
    ],
)
def test_a_search_that_finds_nothing_points_at_every_dashboard_not_a_dead_end(
    request_text, expected, everything
):
    model = planner()
    messages = [system(), HumanMessage(request_text)]
    proposal = model.invoke(messages)
    call = proposal.tool_calls[0]
    assert call["name"] == "search_dashboards" and call["args"]["query"]
    result = json.dumps({"env": "dev", "count": 0, "dashboards": []})
    messages += [proposal, ToolMessage(result, tool_call_id=call["id"])]
    answer = model.invoke(messages)
    assert answer.text == expected and "`" not in answer.text
    # the core's button sends `everything`: every dashboard of that environment
    again = model.invoke([*messages, answer, HumanMessage(everything)]).tool_calls[0]
    assert (again["name"], again["args"]) == ("search_dashboards", {"query": "", "env_id": "dev"})


def test_capabilities_answer_is_a_list_after_a_blank_line():
    result = {
        "count": 2,
        "groups": {"dashboards": [{"name": "search_dashboards", "description": "Find them."}]},
        "excluded": [{"name": "deploy_dashboard", "reason": "requires admin"}],
    }
    text = after_tool(json.dumps(result), "what can you do", "show_capabilities")
    assert text == (
        "Here is what I can do for you here (1):\n\n- find dashboards (`search_dashboards`)"
        "\n\n1 more need another role or another page."
    )
