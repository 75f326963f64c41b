"""The offline planner driving the real agent graph (guard, tool node, checkpoints) with
injected tool implementations: a turn of several steps, a refusal in the user's language
(read from the guard's typed refusal, ``REFUSED: {json}``), and a cancellation with a
reason that is acknowledged and not retried."""

from __future__ import annotations

import json
from typing import Any

from app.agent.tools import TOOL_CATALOG
from app.planner import OfflinePlanner
from tests.agent.harness import first, types_of

SALES = {"id": 7, "title": "Sales demo", "slug": None}


async def _search(args: Any, deps: Any) -> dict[str, Any]:
    return {"env": args.env_id or "dev", "count": 1, "page": 0, "dashboards": [SALES]}


async def _health(args: Any, deps: Any) -> dict[str, Any]:
    return {
        "env": args.env_id,
        "dashboard": {"id": int(args.dashboard_id), "title": "Sales demo"},
        "verdict": "broken",
        "reasons": ["chart 'Revenue' (id 12) fails: HTTP 500"],
        "charts": [{"id": 12, "status": "error"}, {"id": 13, "status": "ok"}],
        "stale_datasets": [],
    }


async def test_a_named_dashboard_is_searched_then_checked_in_one_turn(harness: Any) -> None:
    tools = {"search_dashboards": _search, "get_health_summary": _health}
    harness.use(tools=tools, model=OfflinePlanner(catalog=TOOL_CATALOG))
    events = await harness.run("check the health of dashboard Sales demo in dev")
    starts = [(e["tool_name"], e["tool_args"]) for e in events if e["type"] == "tool_start"]
    assert [name for name, _ in starts] == ["search_dashboards", "get_health_summary"]
    assert starts[0][1]["query"] == "Sales demo" and starts[0][1]["env_id"] == "dev"
    assert starts[1][1] == {"dashboard_id": "7", "env_id": "dev"}
    tokens = "".join(e["text"] for e in events if e["type"] == "token")
    assert "Found “Sales demo” (#7) in dev. Checking the health of dashboard 7 in dev…" in tokens
    assert first(events, "message")["text"] == (
        "“Sales demo” (#7) in dev is broken: 1 of 2 charts failing. "
        "First: chart 'Revenue' (id 12) fails: HTTP 500."
    )
    assert types_of(events)[-1] == "done"


async def test_a_tool_outside_the_page_context_is_explained_in_russian(
    harness: Any,
) -> None:
    harness.use(tools={}, model=OfflinePlanner(catalog=TOOL_CATALOG))
    page = json.dumps({"objectType": "dashboard", "objectId": "42", "envId": "prod"})
    events = await harness.run("удали этот дашборд", uicontext=page)
    assert [e for e in events if e["type"] == "tool_start"] == []
    text = first(events, "message")["text"]
    assert text.startswith("На странице дашборда я не могу удалить дашборд")
    assert "tool not available" not in text
    assert "`" not in text  # the way on is the core's offer on the events, not text


async def test_a_denied_call_with_a_reason_is_acknowledged_once(harness: Any) -> None:
    ran: list[Any] = []

    async def delete(args: Any, deps: Any) -> dict[str, Any]:
        ran.append(args)
        return {}

    harness.use(tools={"delete_dashboard": delete}, model=OfflinePlanner(catalog=TOOL_CATALOG))
    events = await harness.run("delete dashboard 7 in dev")
    confirmation = first(events, "confirm_required")
    events = await harness.resume(confirmation["confirmation_id"], "deny", reason="wrong one")
    assert first(events, "tool_end")["status"] == "cancelled"
    assert first(events, "message")["text"] == (
        "Cancelled — not deleting dashboard 7 in dev: wrong one."
    )
    assert [e for e in events if e["type"] == "confirm_required"] == [] and ran == []
