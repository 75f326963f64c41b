"""The offline planner's reading and writing: routing of look-alike requests, trailing
phrases that are arguments (not SQL), tool results read back from the summarised text,
and answers a person reads at a glance (numbers, no paths, lists after a blank line)."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import pytest
from langchain_core.messages import HumanMessage

from app.agent.execution import summarise_response
from app.planner.answers import report
from app.planner.numbers import fmt_number
from app.planner.results import read_result
from app.planner.sqltext import split_sql
from app.planner.text import EnvResolver
from app.planner.tools import KNOWLEDGE
from app.policy import sql_risk
from tests.planner.planner_turns import planner, system
from tests.samples import SQL_RESULT

ENVS = EnvResolver({"dev": "dev", "staging": "staging", "prod": "prod"})


def proposal(text: str) -> tuple[str, dict[str, Any]]:
    reply = planner().invoke([system(), HumanMessage(text)])
    call = reply.tool_calls[0]
    return call["name"], call["args"]


@pytest.mark.parametrize(
    ("text", "tool", "args"),
    [
        # "quality" is validation, not health
        ("проверь качество дашборда 9", "run_llm_validation", {"dashboard_id": "9"}),
        ("check the quality of dashboard 9", "run_llm_validation", {"dashboard_id": "9"}),
        ("проанализируй дашборд 9", "run_llm_validation", {"dashboard_id": "9"}),
        # an audit of a dashboard is validation; an audit alone is still permissions
        ("audit dashboard 5", "run_llm_validation", {"dashboard_id": "5"}),
        ("audit permissions on prod", "superset_audit_permissions", {"env_id": "prod"}),
        # a failing dashboard is a health question
        ("почему дашборд 9 не работает?", "get_health_summary", {"dashboard_id": "9"}),
        ("what failed on dashboard 9?", "get_health_summary", {"dashboard_id": "9"}),
        # the user's tasks, with and without an id
        ("status of my tasks", "get_task_status", {}),
        ("what are my tasks?", "get_task_status", {}),
        ("статус моих задач", "get_task_status", {}),
        ("check status of task 93ff0a1b", "get_task_status", {"task_id": "93ff0a1b"}),
        # the "Check status" button's message names a deploy but asks for the task status
        (
            "Check the status of the last deploy_dashboard operation (get_task_status)",
            "get_task_status",
            {},
        ),
        ("is the deploy done?", "get_task_status", {}),
        ("как там миграция?", "get_task_status", {}),
        # "check backups" lists them, it does not take one
        ("проверь бэкапы", "list_backups", {"env_id": "dev"}),
        # an environment's reachability is the environment list
        ("is prod up?", "list_environments", {}),
        # "databases are there" names no database called "are"
        ("what databases are there?", "superset_explore_database", {"env_id": "dev"}),
        ("how many dashboards are on prod?", "search_dashboards", {"query": "", "env_id": "prod"}),
    ],
)
def test_look_alike_requests_route_to_the_tool_they_mean(text, tool, args):
    assert proposal(text) == (tool, {**args, **_env_default(tool, args)})


def _env_default(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    takes_env = tool in {"run_llm_validation", "get_health_summary", "superset_audit_permissions"}
    return {"env_id": "dev"} if takes_env and "env_id" not in args else {}


@pytest.mark.parametrize("text", ["delete the backup abf0", "удали бэкап abf0"])
def test_deleting_a_backup_is_no_tool_so_nothing_is_proposed(text):
    assert planner().invoke([system(), HumanMessage(text)]).tool_calls == []


@pytest.mark.parametrize(
    ("text", "sql", "rest"),
    [
        # the phrase after the statement is the database, not SQL
        ("run select count(*) as n from sales on database 1", "select count(*) as n from sales",
         "on database 1"),
        # several trailing phrases, and a sentence's full stop
        ("run select 1 on database 1 in prod.", "select 1", "on database 1 in prod."),
        ("выполни select 1 в базе 2 на проде", "select 1", "в базе 2 на проде"),
        ("run select a from t in schema raw please", "select a from t", "in schema raw please"),
        # a fenced statement keeps its own text; the phrase stays outside
        ("```sql\nselect 1\n``` on database 2", "select 1", "on database 2"),
        # a decimal at the end is SQL, not a full stop
        ("run select * from t where x = 1.5", "select * from t where x = 1.5", ""),
    ],
)  # fmt: skip
def test_trailing_phrases_stay_out_of_the_sql(text, sql, rest):
    split = split_sql(text, ENVS.pattern)
    assert split.sql == sql
    assert split.prefix.strip().endswith(rest)


def test_a_count_with_a_trailing_database_is_a_safe_read():
    _, args = proposal("run select count(*) as n from sales on database 1")
    assert args["database"] == "1"
    assert sql_risk(args["sql"]) == "read"  # no needless 10-second countdown


def test_a_summarised_search_result_still_yields_ids_titles_and_the_count():
    items = [{"id": i, "title": f"Sales {i}", "url": "x" * 300} for i in range(30)]
    text = summarise_response(json.dumps({"env": "dev", "count": 30, "dashboards": items}))
    result = read_result(text)
    assert result.summarised and result.get("env") == "dev" and result.get("count") == 30
    assert result.total("dashboards") == 30
    assert [d["id"] for d in result.items("dashboards")] == [0, 1, 2, 3, 4]
    assert report("search_dashboards", {}, result, "en") == "Found 30 dashboards in dev."


def test_a_summarised_top_level_list_keeps_its_total():
    text = summarise_response(json.dumps([{"backup_id": "b" * 32, "note": "n" * 900}] * 9))
    assert read_result(text).total() == 9


@pytest.mark.parametrize(
    ("value", "lang", "expected"),
    [
        (59849.78999999998, "en", "59,849.79"),
        (59849.78999999998, "ru", "59\u00a0849,79"),
        (3.0, "en", "3"),
        (1234567, "ru", "1\u00a0234\u00a0567"),
        (0.000123, "en", "0.000123"),
    ],
)
def test_numbers_are_formatted_for_the_language_without_float_noise(value, lang, expected):
    assert fmt_number(value, lang) == expected


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "The query returned 2 rows; East has the highest total (59,849.79)."),
        ("ru", "Запрос вернул 2 строки; больше всего total у East (59\u00a0849,79)."),
    ],
)
def test_sql_rows_are_summarised_not_dumped(lang, expected):
    assert report("superset_execute_sql", {}, read_result(json.dumps(SQL_RESULT)), lang) == expected


def test_a_deletion_names_the_backup_and_the_way_back_but_no_path():
    result = {
        "task_id": "93ff" * 8,
        "deleted": {"id": 4, "title": "Browser Throwaway", "slug": None},
        "env_id": "prod",
        "backup_id": "abf0" * 8,
        "backup_path": "/srv/data/backups/prod/x.zip",
        "message": "Deleted 'Browser Throwaway' from prod; backup at /srv/data/backups/prod/x.zip",
    }
    text = report("delete_dashboard", {}, read_result(json.dumps(result)), "en")
    assert text == (
        "Deleted “Browser Throwaway” (#4) from prod. Backup abf0abf0… was taken first; "
        "say “restore backup abf0abf0” to bring it back."
    )


def test_superset_text_in_an_answer_is_inert_markdown():
    result = {"env": "dev", "count": 1, "dashboards": [{"id": 1, "title": "[x](http://e) <b>_"}]}
    text = report("search_dashboards", {}, read_result(json.dumps(result)), "en")
    assert "\\[x\\](http://e) &lt;b&gt;\\_" in text  # no link, no tag, no emphasis


@pytest.mark.parametrize(
    "tool", sorted(t for t, k in KNOWLEDGE.items() if k.report or k.capabilities)
)
@pytest.mark.parametrize("lang", ["en", "ru"])
def test_no_answer_glues_a_list_to_a_line_or_breaks_on_an_empty_result(tool, lang):
    for data in ({}, [], {"groups": {"x": [{"name": "search_dashboards"}]}, "excluded": [1]}):
        text = report(tool, {}, read_result(json.dumps(data)), lang)
        assert text
        lines = text.split("\n")
        for before, line in itertools.pairwise(lines):
            if re.match(r"\s*- ", line):
                assert before == "" or re.match(r"\s*- ", before), text
