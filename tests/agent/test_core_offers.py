"""The ways on are typed facts the core makes, for any model (no door parses a model's
markdown): the scripted model here writes no markdown, and the offers still come.

* a call the page's context leaves out → ``without_context``: the call spelled out
  (environment included), made directly after leaving the context;
* a lookup with several candidates the model answers right after → ``choice`` offers;
* a write that times out → ``check_status`` on its ``tool_timeout``: a direct
  ``get_task_status`` call;
* a turn on a page whose context left tools out, answered without any call → ask again
  without the page's context.
"""

from __future__ import annotations

import asyncio
from typing import Any

from app.events import ErrorEvent, MessageEvent, ToolTimeoutEvent
from tests.agent.harness import types_of
from tests.agent.scripted import call, recording_tools

DASHBOARD_PAGE = {"objectType": "dashboard", "objectId": "42", "envId": "prod"}


def answer(events: list[Any]) -> MessageEvent:
    assert types_of(events)[-2:] == ["message", "done"], types_of(events)
    return events[-2]


async def test_a_call_the_page_leaves_out_is_offered_spelled_out_without_the_context(
    harness: Any,
) -> None:
    log: list[Any] = []
    delete = call("delete_dashboard", dashboard_id="42")
    harness.use(delete, "Not here.", tools=recording_tools(log))
    events = await harness.turn("delete this dashboard", uicontext=DASHBOARD_PAGE, env_id=None)
    refused = next(e for e in events if isinstance(e, ErrorEvent))
    assert refused.refusal is not None and refused.refusal.page == "dashboard" and log == []
    [offer] = answer(events).offers
    assert offer.kind == "without_context" and offer.clear_context
    assert offer.call is not None and offer.call.tool_name == "delete_dashboard"
    assert offer.call.args == {"dashboard_id": "42", "env_id": "prod"}  # spelled out
    assert offer.request == "Delete dashboard 42 in prod"  # the card's own line


async def test_the_offered_call_made_directly_reaches_the_dangerous_card(harness: Any) -> None:
    harness.use(call("delete_dashboard", dashboard_id="42"), "Not here.")
    events = await harness.turn("delete this dashboard", uicontext=DASHBOARD_PAGE, env_id=None)
    offer = answer(events).offers[0]
    assert offer.call is not None
    followed = await harness.call(offer.call.tool_name, offer.call.args)
    card = next(e for e in followed if e.type == "confirm_required")
    assert card.metadata.risk_level == "dangerous" and card.metadata.env_id == "prod"


async def test_several_candidates_answered_right_after_are_choices(harness: Any) -> None:
    async def search(args: Any, deps: Any) -> dict[str, Any]:
        found = [{"id": 7, "title": "Sales demo"}, {"id": 9, "title": "Sales demo old"}]
        return {"env": "dev", "count": 2, "dashboards": found}

    harness.use(
        call("search_dashboards", query="sales"), "Which one?", tools={"search_dashboards": search}
    )
    events = await harness.turn("check the health of Sales")
    offers = answer(events).offers
    assert [(o.kind, o.label, o.request) for o in offers] == [
        ("choice", "“Sales demo” (#7)", "dashboard 7 in dev"),
        ("choice", "“Sales demo old” (#9)", "dashboard 9 in dev"),
    ]
    assert all(o.call is None for o in offers)  # a choice is the person's answer


async def test_candidates_the_model_went_past_are_not_offered(harness: Any) -> None:
    async def search(args: Any, deps: Any) -> dict[str, Any]:
        found = [{"id": 7, "title": "Sales demo"}, {"id": 9, "title": "Sales demo old"}]
        return {"env": "dev", "count": 2, "dashboards": found}

    async def health(args: Any, deps: Any) -> dict[str, Any]:
        return {"verdict": "ok"}

    tools = {"search_dashboards": search, "get_health_summary": health}
    steps = call("search_dashboards", query="sales"), call("get_health_summary", dashboard_id="7")
    harness.use(*steps, "Healthy.", tools=tools)
    events = await harness.turn("check the health of Sales demo")
    assert answer(events).offers == []


async def test_a_write_that_times_out_offers_check_status(harness: Any) -> None:
    async def slow(args: Any, deps: Any) -> Any:
        await asyncio.sleep(5)

    harness.configure(tool_timeout_s=0.05)
    harness.use(
        call("start_maintenance", env_id="dev"), "Unknown.", tools={"start_maintenance": slow}
    )
    events = await harness.turn("start maintenance on dev")
    conf = next(e for e in events if e.type == "confirm_required")
    events = await harness.answer(conf.confirmation_id)
    timeout = next(e for e in events if isinstance(e, ToolTimeoutEvent))
    [offer] = timeout.offers
    assert offer.kind == "check_status" and offer.call is not None
    assert offer.call.tool_name == "get_task_status"
    assert not offer.clear_context  # no page context to leave


async def test_an_answer_without_a_call_on_a_page_offers_to_ask_again_without_it(
    harness: Any,
) -> None:
    harness.use("I can't do that here.")
    events = await harness.turn("удали этот дашборд", uicontext=DASHBOARD_PAGE, env_id=None)
    [offer] = answer(events).offers
    assert offer.kind == "without_context" and offer.clear_context and offer.call is None
    assert offer.request == "удали этот дашборд"
    assert offer.label == "Спросить ещё раз без контекста страницы"


async def test_no_page_context_no_offer(harness: Any) -> None:
    harness.use("Hello.")
    events = await harness.turn("hi")
    assert answer(events).offers == []
