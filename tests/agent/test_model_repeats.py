"""The same call again, in other words, is still the same call: a small model's repeats
(a default written out, the page's environment written out, an argument the tool does
not have, the page a search result already showed) are refused, never run, and the
result already shown is the answer (``app.agent.turn_limits.made_in``)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import HumanMessage, ToolMessage

from app.agent.turn_limits import RAN_KEY, result_of
from app.events import ConfirmRequiredEvent, ToolEndEvent
from app.planner.answers import ResultReporter
from app.policy import TOOL_CATALOG
from tests.agent.scripted import call, recording_tools
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


@pytest.mark.parametrize("again", [{}, {"source_env": None}], ids=["same", "default"])
async def test_a_confirmed_write_asked_again_after_it_ran_never_runs_or_asks_twice(
    harness: Any, again: dict[str, Any]
) -> None:
    """A deploy to prod, confirmed and run, then asked again in the same turn (as written,
    or with a default written out): refused before any card opens, never deployed twice,
    and the refusal is audited. (An argument a write does not have is refused as invalid,
    so a stray never makes a write's repeat look new.)"""
    log: list[Any] = []
    deploy = {"dashboard_id": "42", "target_env": "prod"}
    harness.use(
        call("deploy_dashboard", **deploy),
        call("deploy_dashboard", **deploy, **again),
        tools=recording_tools(log),
    )
    events = await harness.turn("deploy 42 to prod")
    card = next(e for e in events if isinstance(e, ConfirmRequiredEvent))
    after = await harness.answer(card.confirmation_id, "confirm")
    assert [name for name, _args in log] == ["deploy_dashboard"]
    assert not [e for e in after if isinstance(e, ConfirmRequiredEvent)]
    assert [e.tool_name for e in after if isinstance(e, ToolEndEvent)] == ["deploy_dashboard"]
    assert final(after).text == "Here is the result."
    refused = [r for r in harness.audit_rows() if "already called" in str(r["reason"] or "")]
    assert [(r["tool"], r["kind"]) for r in refused] == [("deploy_dashboard", "not_available")]


#: the composition root's words for a result: the offline planner's (``app.parts``)
REPORTER = ResultReporter(lambda: TOOL_CATALOG)


@pytest.mark.parametrize(
    ("message", "stray", "answer"),
    [
        ("find sales dashboards", {}, "Found one dashboard in dev: “Sales” (#7)."),
        ("найди дашборды sales", {}, "Нашёл один дашборд на dev: «Sales» (#7)."),
        # the guard's note of a dropped argument, read by the model first, is not the result
        ("find sales dashboards", {"order": "title"}, "Found one dashboard in dev: “Sales” (#7)."),
    ],
    ids=["en", "ru", "stray"],
)
async def test_a_repeat_after_a_result_is_answered_with_what_the_result_holds(
    harness: Any, message: str, stray: dict[str, Any], answer: str
) -> None:
    """With the composition root's reporter, the answer says what the result holds (the
    environment it ran on included, though the model wrote none), in the turn's
    language; the repeat still never runs and is audited."""
    log: list[Any] = []
    harness.use(
        call("search_dashboards", query="sales", **stray),
        call("search_dashboards", query="sales", **stray),
        "never asked",
        tools=_search_past_the_end(log),
        reporter=REPORTER,
    )
    events = await harness.turn(message)
    assert log == [0]
    said = final(events)
    assert said.problem is None and said.text == answer
    rows = [r["reason"] for r in harness.audit_rows() if "repeated" in str(r["reason"])]
    assert rows == ["model: repeated_result: search_dashboards (1)"]


async def test_words_that_fail_leave_the_plain_sentence(
    harness: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A reporter that raises, or has no words (None), costs the answer nothing but its
    detail: the plain sentence answers, and a failure is logged."""

    def broken(*_args: Any) -> str:
        raise KeyError("dashboards")

    for reporter, logged in ((broken, 1), (lambda *_a: None, 0)):
        caplog.clear()
        harness.use(
            call("search_dashboards", query="sales"),
            call("search_dashboards", query="sales"),
            tools=_search_past_the_end([]),
            reporter=reporter,
        )
        said = final(await harness.turn("find sales dashboards"))
        assert said.problem is None and said.text == "Here is the result."
        failed = [r for r in caplog.records if "no words for search_dashboards" in r.message]
        assert len(failed) == logged


def test_the_result_worded_is_the_turns_latest_success_as_it_ran() -> None:
    """``result_of``: this turn's latest successful result of the tool, with the arguments
    it ran with and its environment in the argument that places it; a failure, another
    tool, or an earlier turn's result is none."""

    def ran(content: str, name: str = "search_dashboards", env: str = "prod") -> ToolMessage:
        how = {"args": {"query": "sales", "env_id": None}, "env_id": env}
        return ToolMessage(content, name=name, tool_call_id="c", artifact={RAN_KEY: how})

    earlier = [HumanMessage("find sales"), ran('{"count": 9}', env="dev")]
    turn = [HumanMessage("find sales again"), ran('{"count": 1}'), ran("ERROR: Superset is down")]
    assert result_of([*earlier, *turn], "search_dashboards") == (
        {"query": "sales", "env_id": "prod"},
        '{"count": 1}',
    )
    dropped = "NOTE: arguments this tool does not have were ignored: order.\n"  # the guard's
    noted = ran(dropped + '{"count": 2}')
    assert result_of([*turn, noted], "search_dashboards") == (
        {"query": "sales", "env_id": "prod"},
        '{"count": 2}',
    )
    assert result_of([*earlier, *turn], "check_health") is None
    assert result_of([*earlier, HumanMessage("and now?")], "search_dashboards") is None
