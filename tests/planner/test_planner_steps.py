"""The offline planner plans in steps: it looks a named object up, goes on with the
intended tool in the same turn, asks in words when several match, and completes the
request when the person picks one (what the core's choice buttons send)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from app.agent.prompt import prompt_messages
from app.facts import TurnFacts
from app.i18n import detect_lang
from app.planner.actions import doing, not_doing, spelled_out
from app.planner.slots import CallText
from app.planner.tools import KNOWLEDGE
from app.planner.tools.backup import FULL_BACKUP_ID
from app.tools.catalog import TOOL_CATALOG
from tests.planner.test_planner import DASHBOARD_PAGE, planner, refused, system
from tests.planner.test_planner_eval import case_messages, load_eval, proposed_calls, steps_of

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


def converse(text: str, *results: Any, page: dict[str, Any] | None = None) -> list[AIMessage]:
    """The planner's replies along one turn, each tool call answered by the next result."""
    model, replies = planner(), []
    messages: list[Any] = [system(page=page), HumanMessage(text)]
    for result in [*results, None]:
        reply = model.invoke(messages)
        replies.append(reply)
        if not reply.tool_calls or result is None:
            break
        content = result if isinstance(result, str) else json.dumps(result)
        messages += [reply, ToolMessage(content, tool_call_id=reply.tool_calls[0]["id"])]
    return replies


def calls(replies: list[AIMessage]) -> list[tuple[str, dict[str, Any]]]:
    return [(c["name"], c["args"]) for r in replies for c in r.tool_calls]


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


FACTS = TurnFacts("dev", {"dev": "dev", "staging": "staging", "prod": "prod"})


def turn(history: list[Any], text: str, *results: Any) -> list[AIMessage]:
    """One turn as the core runs it (the turn's facts in a system message right before the
    person's message), each tool call answered by the next result; ``history`` grows."""
    model, replies = planner(), []
    history.append(HumanMessage(text))
    for result in [*results, None]:
        reply = model.invoke(prompt_messages(history, FACTS, None))
        replies.append(reply)
        history.append(reply)
        if not reply.tool_calls or result is None:
            break
        content = result if isinstance(result, str) else json.dumps(result)
        history.append(ToolMessage(content, tool_call_id=reply.tool_calls[0]["id"]))
    return replies


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


# --- spelled-out requests -------------------------------------------------------------------
def _eval_calls() -> list[tuple[str, dict[str, Any], str]]:
    defaults, cases = load_eval()
    model, out = planner(), []
    for case in cases:
        if steps_of(case)[-1]["expect"] == "answer":
            continue  # the last call was a lookup, not the request itself
        for call in proposed_calls(model, case, defaults)[-1:]:
            out.append((call["name"], call["args"], case.get("selected_env") or "dev"))
    return out


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_every_spelled_out_request_plans_the_same_call_without_the_page(lang):
    defaults, _ = load_eval()
    model, wrong = planner(), []
    for tool, args, selected in _eval_calls():
        if tool == "restore_backup" and not FULL_BACKUP_ID.fullmatch(args["backup_id"]):
            continue  # a short id is looked up again, by design
        request = spelled_out(tool, args, lang)
        case = {"say": request, "selected_env": selected}
        reply = model.invoke(case_messages(case, defaults))
        got = [(c["name"], c["args"]) for c in reply.tool_calls]
        if got != [(tool, args)]:
            wrong.append(f"{request!r}: {got}")
    assert wrong == []


FULL_CALL = {
    "query": "sales",
    "task_id": "t1",
    "env_id": "prod",
    "dashboard_id": 7,
    "dashboard_ids": [7, 8],
    "backup_id": "abf0" + "1" * 28,
    "branch": "fix",
    "message": "fix it",
    "database": "examples",
    "schema": "public",
    "table": "sales",
    "table_name": "sales",
    "sql": "select 1",
    "row_limit": 5,
    "role": "Gamma",
    "duration_minutes": 30,
    "reason": "upgrade",
    "source_env": "dev",
    "target_env": "prod",
    "database_mapping": {"a": "b"},
}


@pytest.mark.parametrize("tool", sorted(TOOL_CATALOG))
@pytest.mark.parametrize("args", [{}, FULL_CALL], ids=["bare", "full"])
def test_every_call_is_said_in_both_languages_with_every_slot_filled(tool, args):
    for lang in ("en", "ru"):
        said = [doing(tool, args, lang), not_doing(tool, args, lang), spelled_out(tool, args, lang)]
        assert all(text and "{" not in text for text in said), said
    assert spelled_out(tool, args, "ru") != spelled_out(tool, args, "en")


def test_every_catalog_tool_has_its_five_forms_in_the_planner():
    assert all(KNOWLEDGE[tool].phrase is not None for tool in TOOL_CATALOG)


@pytest.mark.parametrize(
    ("doing", "ru_noun", "spelled"),
    [
        (("checking", ""), "проверку", ("check", "проверь")),  # a blank Russian step
        (("checking", "проверяю"), " ", ("check", "проверь")),  # a blank noun
        (("checking", "проверяю"), "проверку", ("check",)),  # a request in one language
    ],
)
def test_a_call_text_without_its_five_forms_is_refused(doing, ru_noun, spelled):
    with pytest.raises(ValueError, match="five forms"):
        CallText(doing=doing, ru_noun=ru_noun, request=spelled)


def test_the_eval_has_multi_step_cases_in_both_languages():
    _, cases = load_eval()
    multi = [c for c in cases if len(steps_of(c)) > 1]
    assert any("ё" in c["say"] or "д" in c["say"] for c in multi)
    assert any(c["say"].isascii() for c in multi)


@pytest.mark.parametrize(
    ("text", "spelled"),
    [
        # requests that once hit a wall on a dashboard page
        ("list backups", "list backups in dev"),
        ("back up this dashboard", "back up dashboard 42 in prod"),
        ("status of my tasks", "status of my tasks"),
        ("статус моих задач", "статус моих задач"),
        ("сделай бэкап этого дашборда", "сделай бэкап дашборда 42 на prod"),
    ],
)
def test_a_request_the_page_filters_out_is_explained_and_its_spelled_out_form_plans_it(
    text, spelled
):
    """The way on (the call without the page's context) is the core's offer; the planner
    says why, and the request it spells out in its sentences plans the same call."""
    dashboard_page_tools = ["search_dashboards", "get_health_summary", "show_capabilities"]
    model = planner(dashboard_page_tools)
    messages: list[Any] = [system(page=DASHBOARD_PAGE), HumanMessage(text)]
    proposal = model.invoke(messages)
    call = proposal.tool_calls[0]
    refusal = refused("not_available", call["name"], args=call["args"], page="dashboard")
    answer = model.invoke([*messages, proposal, ToolMessage(refusal, tool_call_id=call["id"])])
    assert answer.tool_calls == [] and "`" not in answer.text
    assert answer.text.startswith(("On a dashboard page I can't", "На странице дашборда"))
    assert spelled_out(call["name"], call["args"], detect_lang(text)) == spelled
    again = planner().invoke([system(), HumanMessage(spelled)])
    assert [(c["name"], c["args"]) for c in again.tool_calls] == [(call["name"], call["args"])]


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
