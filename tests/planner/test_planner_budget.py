"""The offline planner reads what the model's input budget leaves of a long conversation
(app.agent.budget) and still answers: after thirty turns of large results, far past the
budget, a pick completes the question the previous turn asked (the budget keeps the
previous turn whole, however old the rest)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from langchain_core.messages import BaseMessage

from app.events import MessageEvent, ToolStartEvent
from app.planner import OfflinePlanner
from app.tools.catalog import TOOL_CATALOG
from tests.agent.test_input_budget import dashboards, sent_chars

SEVERAL = [{"id": 7, "title": "Sales demo", "slug": None}, {"id": 9, "title": "Sales old"}]


class MeasuredPlanner(OfflinePlanner):
    """The planner, noting how many characters of conversation each call hands it."""

    sizes: list[int]

    async def _agenerate(self, messages: list[BaseMessage], *args: Any, **kw: Any) -> Any:
        self.sizes.append(sent_chars(messages))
        return await super()._agenerate(messages, *args, **kw)

    async def _astream(self, messages: list[BaseMessage], *args: Any, **kw: Any) -> AsyncIterator:
        self.sizes.append(sent_chars(messages))
        async for chunk in super()._astream(messages, *args, **kw):
            yield chunk


async def _search(args: Any, deps: Any) -> dict[str, Any]:
    if args.query == "Sales":
        return {"env": "dev", "count": 2, "page": 0, "dashboards": SEVERAL}
    return dashboards(args, deps)


async def _health(args: Any, deps: Any) -> dict[str, Any]:
    return {
        "env": "dev",
        "dashboard": {"id": int(args.dashboard_id), "title": "Sales old"},
        "verdict": "ok",
        "reasons": [],
        "charts": [{"id": 1, "status": "ok"}],
        "stale_datasets": [],
    }


async def test_a_pick_completes_the_previous_question_after_a_long_conversation(
    harness: Any,
) -> None:
    budget = 16_000
    harness.configure(model_input_max_chars=budget, user_turns_per_minute=0)  # a burst of turns
    planner = MeasuredPlanner(catalog=TOOL_CATALOG, sizes=[])
    harness.use(model=planner, tools={"search_dashboards": _search, "get_health_summary": _health})
    conv = None
    for n in range(30):
        await harness.turn(f"find dashboards q{n}", conv_id=conv)
        conv = harness.conv_id
    events = await harness.turn("check the health of Sales", conv_id=conv)
    message = next(e for e in events if isinstance(e, MessageEvent))
    picks = [o.request for o in message.offers if o.kind == "choice"]
    assert picks == ["dashboard 7 in dev", "dashboard 9 in dev"]
    events = await harness.turn(picks[1], conv_id=conv)
    started = [(e.tool_name, e.tool_args) for e in events if isinstance(e, ToolStartEvent)]
    assert started == [("get_health_summary", {"dashboard_id": "9", "env_id": "dev"})]
    assert (
        planner.sizes and max(planner.sizes) <= budget
    )  # the conversation alone: the tools count too
    state = await (await harness.core.graph()).aget_state({"configurable": {"thread_id": conv}})
    assert sent_chars(state.values["messages"]) > 5 * budget  # trimmed, not merely short
