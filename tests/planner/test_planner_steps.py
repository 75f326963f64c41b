"""The offline planner plans in steps: it looks a named object up, goes on with the
intended tool in the same turn, asks in words when several match, and completes the
request when the person picks one (what the core's choice buttons send)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, ToolMessage

from tests.planner.planner_turns import (
    DASHBOARD_PAGE,
    calls,
    converse,
    planner,
    refused,
    system,
    turn,
)

SALES = {"env": "dev", "count": 1, "dashboards": [{"id": 7, "title": "Sales demo"}]}
SEVERAL = {
    "env": "dev",
    "count": 2,
    "dashboards": [{"id": 7, "title": "Sales demo"}, {"id": 9, "title": "Sales demo old"}],
}
BACKUPS = {
    "env_id": "dev",
    "count": 2,
    "backups": [
        {"backup_id": "abf0" + "1" * 28, "env_id": "dev", "created_at": "2026-02-01T10:00:00"},
        {"backup_id": "0cd1" + "2" * 28, "env_id": "dev", "created_at": "2026-01-01T09:00:00"},
    ],
}


def test_a_dashboard_named_by_title_is_searched_then_checked_in_the_same_turn():
    replies = converse("check the health of dashboard Sales demo in dev", SALES)
    assert calls(replies) == [
        ("search_dashboards", {"query": "Sales demo", "env_id": "dev"}),
        ("get_health_summary", {"dashboard_id": "7", "env_id": "dev"}),
    ]
    assert replies[0].text == "Looking for dashboard “Sales demo” in dev…"
    assert replies[1].text == (
        "Found “Sales demo” (#7) in dev. Checking the health of dashboard 7 in dev…"
    )


def test_an_exact_title_among_several_matches_is_taken():
    result = {**SEVERAL, "dashboards": [*SEVERAL["dashboards"], {"id": 3, "title": "Sales"}]}
    replies = converse("validate dashboard Sales", result)
    assert calls(replies)[-1] == ("run_llm_validation", {"dashboard_id": "3", "env_id": "dev"})


def test_several_matches_are_asked_about_in_words_and_nothing_runs():
    replies = converse("проверь здоровье дашборда Sales", SEVERAL)
    assert len(calls(replies)) == 1  # the search only
    assert replies[-1].text == (
        "Под «Sales» на dev подходят несколько дашбордов (2). Какой вы имеете в виду?"
        "\n\n- «Sales demo» (#7)\n- «Sales demo old» (#9)"
    )  # the buttons that pick one are the core's offers: no request is written here


@pytest.mark.parametrize("answer", ["#9", "9", "дашборд 9"])
def test_answering_the_question_with_an_id_completes_the_request(answer):
    model = planner()
    messages: list[Any] = [system(), HumanMessage("проверь здоровье дашборда Sales")]
    search = model.invoke(messages)
    messages += [search, ToolMessage(json.dumps(SEVERAL), tool_call_id=search.tool_calls[0]["id"])]
    question = model.invoke(messages)
    reply = model.invoke([*messages, question, HumanMessage(answer)])
    assert calls([reply]) == [("get_health_summary", {"dashboard_id": "9", "env_id": "dev"})]
    assert reply.text == "Проверяю здоровье дашборда 9 на dev…"  # the turn stays Russian


PICKS = [  # (the request, the lookup's result, what the core's button sends, the call)
    (
        "check the health of Sales",
        SEVERAL,
        "dashboard 7 in dev",
        ("get_health_summary", {"dashboard_id": "7", "env_id": "dev"}),
    ),
    (
        "проверь здоровье Sales",
        SEVERAL,
        "дашборд 9 в dev",
        ("get_health_summary", {"dashboard_id": "9", "env_id": "dev"}),
    ),
    (
        "delete dashboard Sales on prod",
        {**SEVERAL, "env": "prod"},
        "dashboard 9 in prod",
        ("delete_dashboard", {"dashboard_id": "9", "env_id": "prod"}),
    ),
    (
        "удали дашборд Sales на проде",
        {**SEVERAL, "env": "prod"},
        "дашборд 7 в prod",
        ("delete_dashboard", {"dashboard_id": "7", "env_id": "prod"}),
    ),
    (
        "задеплой дашборд Sales на стейдж",
        SEVERAL,
        "дашборд 9 в dev",
        ("deploy_dashboard", {"dashboard_id": "9", "source_env": "dev", "target_env": "staging"}),
    ),
    (
        "validate dashboard Sales",
        SEVERAL,
        "dashboard 9",
        ("run_llm_validation", {"dashboard_id": "9", "env_id": "dev"}),
    ),
]


@pytest.mark.parametrize(("request_text", "found", "pick", "expected"), PICKS)
def test_a_pick_completes_the_request_the_question_was_about(request_text, found, pick, expected):
    history: list[Any] = []
    first = turn(history, request_text, found)
    assert [name for name, _ in calls(first)] == ["search_dashboards"]
    assert "?" in first[-1].text and "`" not in first[-1].text
    reply = turn(history, pick)[0]
    assert calls([reply]) == [expected]
    assert "search_dashboards" not in [name for name, _ in calls([reply])]


@pytest.mark.parametrize(
    ("request_text", "pick", "expected_id", "looking"),
    [
        ("restore backup 2", "backup 0cd12222", "0cd1" + "2" * 28, "Looking up backup “0cd12222”"),
        ("восстанови бэкап 1", "бэкап abf01111", "abf0" + "1" * 28, "Ищу бэкап «abf01111»"),
    ],
)
def test_a_backup_pick_is_looked_up_again_and_restored(request_text, pick, expected_id, looking):
    history: list[Any] = []
    first = turn(history, request_text, BACKUPS)
    assert calls(first) == [("list_backups", {})] and first[-1].tool_calls == []
    replies = turn(history, pick, BACKUPS)
    assert replies[0].text.startswith(looking)
    assert calls(replies) == [("list_backups", {}), ("restore_backup", {"backup_id": expected_id})]


@pytest.mark.parametrize(
    "pick",
    ["dashboard 7 in dev", "дашборд 7 в dev", "dashboard 9", "backup abf01111", "бэкап 0cd12222"],
)
def test_a_pick_with_no_question_before_it_is_never_a_search_nor_a_backup(pick):
    reply = turn([], pick)[0]
    assert reply.tool_calls == []  # the capabilities: nothing named what to do


def test_a_pick_after_an_answer_that_asked_nothing_does_not_search():
    history: list[Any] = []
    turn(history, "list environments", {"environments": [{"id": "dev"}]})
    reply = turn(history, "dashboard 7 in dev")[0]
    assert reply.tool_calls == []


def test_no_match_is_said_plainly():
    replies = converse(
        "delete dashboard Nope on prod", {"env": "prod", "count": 0, "dashboards": []}
    )
    assert replies[-1].tool_calls == []
    assert replies[-1].text.startswith("No dashboard matches “Nope” in prod.")


def test_a_migration_searches_the_source_environment():
    replies = converse("migrate dashboard Sales demo from dev to prod", SALES)
    assert calls(replies) == [
        ("search_dashboards", {"query": "Sales demo", "env_id": "dev"}),
        ("execute_migration", {"dashboard_ids": ["7"], "source_env": "dev", "target_env": "prod"}),
    ]


@pytest.mark.parametrize(
    ("text", "expected_id"),
    [
        ("restore backup abf0", "abf0" + "1" * 28),  # a prefix
        ("restore backup abf01111…", "abf0" + "1" * 28),  # pasted from an answer
        ("восстанови бэкап 0cd1", "0cd1" + "2" * 28),
    ],
)
def test_a_short_backup_id_is_looked_up_in_the_backup_list(text, expected_id):
    replies = converse(text, BACKUPS)
    assert calls(replies) == [("list_backups", {}), ("restore_backup", {"backup_id": expected_id})]


def test_a_backup_number_that_is_no_id_prefix_is_asked_about_not_restored():
    replies = converse("restore backup 2", BACKUPS)
    assert len(calls(replies)) == 1
    assert replies[-1].text == (
        "No backup id starts with “2” in dev. Did you mean the backup number 2 of the list?"
        "\n\n- 0cd12222… (dev, 2026-01-01 09:00)"
    )


def test_a_full_backup_id_is_restored_without_a_lookup():
    full = "abf0" + "1" * 28
    assert calls(converse(f"restore backup {full}")) == [("restore_backup", {"backup_id": full})]


def test_a_refused_lookup_is_explained_as_the_intended_request():
    refusal = refused("not_available", "list_backups", page="dashboard")
    replies = converse("restore backup abf0", refusal, page=DASHBOARD_PAGE)
    assert replies[-1].text == (
        "On a dashboard page I can't restore a backup: the page's context leaves it out."
    )


def test_a_tool_outside_the_bound_set_is_proposed_with_the_name_unresolved():
    model = planner(["search_dashboards", "get_health_summary"])
    reply = model.invoke([system(), HumanMessage("delete dashboard Sales demo in prod")])
    assert calls([reply]) == [
        ("delete_dashboard", {"dashboard_id": "Sales demo", "env_id": "prod"})
    ]


def test_the_intended_tool_is_never_called_twice_in_a_turn():
    health = {"env": "dev", "dashboard": {"id": 7, "title": "Sales demo"}, "verdict": "ok"}
    replies = converse("check the health of dashboard Sales demo", SALES, health, SALES)
    assert [name for name, _ in calls(replies)] == ["search_dashboards", "get_health_summary"]
    assert replies[-1].tool_calls == []


def test_a_cancelled_step_after_a_search_is_acknowledged_once():
    cancelled = refused("cancelled", "delete_dashboard", reason="not that one")
    replies = converse("delete dashboard Sales demo in dev", SALES, cancelled)
    assert replies[-1].tool_calls == []
    assert replies[-1].text == "Cancelled — not deleting dashboard 7 in dev: not that one."
