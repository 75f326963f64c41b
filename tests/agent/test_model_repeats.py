"""The same call again, in other words, is still the same call: a small model's repeats
(a default written out, the page's environment written out, an argument the tool does
not have, the page a search result already showed) are refused, never run, and the
result already shown is the answer (``app.agent.turn_limits.made_in``)."""

from __future__ import annotations

from typing import Any

import pytest

from app.events import ToolEndEvent
from tests.agent.scripted import call
from tests.agent.test_model_mistakes import final


def _search_past_the_end(log: list[Any]) -> dict[str, Any]:
    """``search_dashboards`` as the product's behaves with one result: a page past the
    last shows the last one and says which was asked."""

    async def search(args: Any, deps: Any) -> dict[str, Any]:
        log.append(args.page)
        moved = {"page_asked": args.page} if args.page else {}
        found = [{"id": 7, "title": "Sales"}]
        return {"env": "dev", "count": 1, "page": 0, **moved, "page_size": args.page_size,
                "dashboards": found}  # fmt: skip

    return {"search_dashboards": search}


@pytest.mark.parametrize(
    ("first", "then", "ran", "answer"),
    [
        # the local model counts pages from 1: shown page 0 (the only one), it asks for it
        ({"page": 1}, {"page": 0}, [1], "Here is the result."),
        ({}, {"page": 0}, [0], "Here is the result."),  # a default written out: the same
        # the page's environment (dev) written out: the call as it would run is the same
        ({"page": 1}, {"page": 0, "env_id": "dev"}, [1], "Here is the result."),
        ({"page": 1}, {"page": 0, "env_id": "prod"}, [1, 0], "Only one."),  # another place
        # an argument the tool does not have, dropped by the guard: as run, the same call
        ({"page": 1}, {"page": 0, "order": "title"}, [1], "Here is the result."),
        ({"page": 1}, {"page": 2}, [1, 2], "Only one."),  # another page than shown: runs
    ],
    ids=["page", "default", "environment", "other_env", "stray", "other_page"],
)
async def test_asking_for_the_page_a_search_already_showed_is_the_same_call_again(
    harness: Any, first: dict[str, Any], then: dict[str, Any], ran: list[Any], answer: str
) -> None:
    """The same call again is refused and the result already shown is the answer (shown
    once); a call that asks for something else runs."""
    log: list[Any] = []
    harness.use(
        call("search_dashboards", query="sales", **first),
        call("search_dashboards", query="sales", **then),
        "Only one.",
        tools=_search_past_the_end(log),
    )
    events = await harness.turn("find sales dashboards")
    assert log == ran
    assert [e.tool_name for e in events if isinstance(e, ToolEndEvent)] == [
        "search_dashboards"
    ] * len(ran)
    assert final(events).text == answer
