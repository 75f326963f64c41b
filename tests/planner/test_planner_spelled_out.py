"""The requests the offline planner spells out: every call it plans has a sentence in
English and Russian that plans the same call again without the page, every catalog tool
has its five forms (what is being done, not done, and the request in both languages),
and a request the page filters out is explained with a spelled-out form that plans it."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import HumanMessage, ToolMessage

from app.i18n import detect_lang
from app.planner.actions import doing, not_doing, spelled_out
from app.planner.slots import CallText
from app.planner.tools import KNOWLEDGE
from app.planner.tools.backup import FULL_BACKUP_ID
from app.tools.catalog import TOOL_CATALOG
from tests.planner.planner_turns import DASHBOARD_PAGE, planner, refused, system
from tests.planner.test_planner_eval import case_messages, load_eval, proposed_calls, steps_of


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
