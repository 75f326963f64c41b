"""The confirmation card names the object as the person knows it: "Delete dashboard
“Customer Health” (#2) in dev", not "Delete dashboard 2 in dev", when the name is known —
from the page's context (the same object, in that environment), from a result earlier in
the turn, or from earlier in the conversation (the way on "Continue without this page's
context" leaves the context, not the name). With only an id, the card says the id."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from app.agent.names import (
    card_names,
    object_env,
    page_names,
    remembered,
    result_names,
    to_state,
)
from app.context import UIContext
from app.events import ConfirmRequiredEvent, ErrorEvent, MessageEvent
from app.policy import DEFAULT_POLICY
from tests.agent.scripted import call, recording_tools

PAGE = {"objectType": "dashboard", "objectId": "2", "objectName": "Customer Health",
        "envId": "dev"}  # fmt: skip


def _ui(**over: Any) -> UIContext:
    return UIContext(**{**PAGE, **over})


@pytest.mark.parametrize(
    ("tool", "args", "env", "lang", "line"),
    [
        # a known name: quoted, with the id beside it
        ("delete_dashboard", {"dashboard_id": "2"}, "dev", "en",
         "Delete dashboard “Customer Health” (#2) in dev"),
        # Russian quotes in Russian
        ("delete_dashboard", {"dashboard_id": "2"}, "dev", "ru",
         "Удалить дашборд «Customer Health» (#2) в dev"),
        # only an id: the id, as before
        ("delete_dashboard", {"dashboard_id": "7"}, "dev", "en", "Delete dashboard 7 in dev"),
        # dashboard 2 of prod is not dashboard 2 of dev
        ("delete_dashboard", {"dashboard_id": "2"}, "prod", "en", "Delete dashboard 2 in prod"),
        # a deploy names its dashboard in its source (the page's environment here)
        ("deploy_dashboard", {"dashboard_id": "2", "target_env": "prod"}, "prod", "en",
         "Deploy dashboard “Customer Health” (#2) to prod"),
        # … and not when it copies from elsewhere
        ("deploy_dashboard", {"dashboard_id": "2", "source_env": "staging",
                              "target_env": "prod"}, "prod", "en",
         "Deploy dashboard 2 from staging to prod"),
    ],
)  # fmt: skip
def test_the_card_line_names_a_known_object(tool, args, env, lang, line) -> None:
    known = page_names(_ui(), "dev")
    spec = DEFAULT_POLICY.spec(tool)
    assert spec is not None
    assert spec.describe(args, env, lang, card_names(args, env, "dev", known)) == line


@pytest.mark.parametrize(
    ("ui", "page_env", "expected"),
    [
        (_ui(), None, {("dashboard", "dev", "2"): "Customer Health"}),  # the link's env
        (_ui(envId=None), "prod", {("dashboard", "prod", "2"): "Customer Health"}),  # or the page
        (_ui(objectName=None), "dev", {}),  # no name: nothing to say
        (_ui(envId=None), None, {}),  # no environment: a name of nowhere
        (None, "dev", {}),  # no page context
        # a hostile title: one line, no controls, cut with an ellipsis
        (_ui(objectName="<b>x</b>\n\u202e" + "y" * 200), "dev",
         {("dashboard", "dev", "2"): "<b>x</b> " + "y" * 70 + "…"}),
    ],
)  # fmt: skip
def test_what_the_page_context_names(ui, page_env, expected) -> None:
    assert page_names(ui, page_env) == expected


def _result(view: dict[str, Any] | None) -> ToolMessage:
    return ToolMessage(content="{}", tool_call_id="t1", artifact={"view": view} if view else None)


@pytest.mark.parametrize(
    ("view", "expected"),
    [
        # a search's list names each dashboard in its environment
        ({"kind": "linked_list", "object_type": "dashboard", "env": "dev",
          "items": [{"id": 2, "title": "Customer Health"}, {"id": 3, "title": "Sales"}]},
         {("dashboard", "dev", "2"): "Customer Health", ("dashboard", "dev", "3"): "Sales"}),
        # datasets too
        ({"kind": "linked_list", "object_type": "dataset", "env": "prod",
          "items": [{"id": 5, "title": "orders"}]}, {("dataset", "prod", "5"): "orders"}),
        # a health check names its dashboard
        ({"kind": "health", "env": "dev", "dashboard": {"id": 2, "title": "Customer Health"},
          "verdict": "ok", "counts": {}}, {("dashboard", "dev", "2"): "Customer Health"}),
        # a list of no environment names nothing (which dashboard 2?)
        ({"kind": "linked_list", "object_type": "dashboard", "items": [{"id": 2, "title": "X"}]},
         {}),
        # databases are not named on cards
        ({"kind": "linked_list", "object_type": "database", "env": "dev",
          "items": [{"id": 1, "title": "Sales"}]}, {}),
        (None, {}),  # a text result
    ],
)  # fmt: skip
def test_what_a_turns_results_name(view, expected) -> None:
    assert result_names([HumanMessage("find it"), AIMessage(""), _result(view)]) == expected


def test_the_names_kept_with_a_conversation_read_back_the_same() -> None:
    known = {("dashboard", "dev", "2"): "Customer Health", ("dataset", "prod", "a|b"): "x"}
    assert remembered(to_state(known)) == known
    assert remembered({"bad": "x", "dashboard|dev|3": 7}) == {}  # what it cannot read: skipped


@pytest.mark.parametrize(
    ("args", "env_id", "page_env", "expected"),
    [
        ({"dashboard_id": "2"}, "dev", "prod", "dev"),  # a call acts where it runs
        ({"dashboard_id": "2", "target_env": "prod"}, "prod", "dev", "dev"),  # a copy: from
        ({"dashboard_id": "2", "source_env": "staging", "target_env": "prod"}, "prod", "dev",
         "staging"),
    ],
)  # fmt: skip
def test_where_a_calls_object_lives(args, env_id, page_env, expected) -> None:
    assert object_env(args, env_id, page_env) == expected


# ---- through the core: the card event says it ---------------------------------------------
def _card(events: list[Any]) -> ConfirmRequiredEvent:
    return next(e for e in events if isinstance(e, ConfirmRequiredEvent))


async def test_the_page_contexts_name_reaches_the_card(harness: Any) -> None:
    harness.use(call("deploy_dashboard", dashboard_id="2", target_env="prod"), "Asked.",
                tools=recording_tools([]))  # fmt: skip
    events = await harness.turn("deploy this to prod", uicontext=PAGE, env_id="dev")
    assert _card(events).metadata.description == "Deploy dashboard “Customer Health” (#2) to prod"


async def test_only_an_id_gives_the_id(harness: Any) -> None:
    harness.use(call("delete_dashboard", dashboard_id="2", env_id="dev"), "Asked.",
                tools=recording_tools([]))  # fmt: skip
    events = await harness.turn("delete dashboard 2 in dev", env_id="dev")
    assert _card(events).metadata.description == "Delete dashboard 2 in dev"


async def test_an_earlier_result_in_the_turn_names_the_card(harness: Any) -> None:
    async def search(args: Any, deps: Any) -> dict[str, Any]:
        found = [{"id": 2, "title": "Customer Health", "url": "http://dev/superset/dashboard/2/"}]
        return {"env": "dev", "count": 1, "dashboards": found}

    tools = {**recording_tools([]), "search_dashboards": search}
    harness.use(call("search_dashboards", query="customer", env_id="dev"),
                call("delete_dashboard", dashboard_id="2", env_id="dev"), "Asked.",
                tools=tools)  # fmt: skip
    events = await harness.turn("удали дашборд Customer Health", env_id="dev")  # Russian
    assert _card(events).metadata.description == "Удалить дашборд «Customer Health» (#2) в dev"


async def test_the_way_on_without_the_context_keeps_the_name(harness: Any) -> None:
    harness.use(call("delete_dashboard", dashboard_id="2"), "Not here.")
    events = await harness.turn("delete this dashboard", uicontext=PAGE, env_id="dev")
    assert any(isinstance(e, ErrorEvent) for e in events)
    [offer] = next(e for e in events if isinstance(e, MessageEvent)).offers
    assert offer.request == "Delete dashboard “Customer Health” (#2) in dev"
    assert offer.call is not None
    followed = await harness.call(offer.call.tool_name, offer.call.args)  # no context now
    assert _card(followed).metadata.description == "Delete dashboard “Customer Health” (#2) in dev"
