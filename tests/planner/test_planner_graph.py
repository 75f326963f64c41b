"""The offline planner driving the real agent graph (guard, tool node, checkpoints) with
injected tool implementations: a turn of several steps, a refusal in the user's language
(read from the guard's typed refusal, ``REFUSED: {json}``), and a cancellation with a
reason that is acknowledged and not retried."""

from __future__ import annotations

import json
from typing import Any

from app.events import MessageEvent, ToolStartEvent
from app.planner import OfflinePlanner
from app.tools.catalog import TOOL_CATALOG
from tests.agent.harness import first, types_of

SALES = {"id": 7, "title": "Sales demo", "slug": None}
SEVERAL = [SALES, {"id": 9, "title": "Sales demo old", "slug": None}]


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


async def _several(args: Any, deps: Any) -> dict[str, Any]:
    return {"env": args.env_id or "dev", "count": 2, "page": 0, "dashboards": SEVERAL}


async def _explore(args: Any, deps: Any) -> dict[str, Any]:
    database = {"id": 1, "name": args.database}
    if args.schema is None:
        return {"env": args.env_id, "database": database, "level": "schemas",
                "schemas": ["main", "public"]}  # fmt: skip
    tables = [{"name": "orders"}, {"name": "sales"}]
    return {"env": args.env_id, "database": database, "level": "tables", "tables": tables}


def _started(events: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(e.tool_name, e.tool_args) for e in events if isinstance(e, ToolStartEvent)]


async def test_the_cores_choice_completes_the_request_the_planner_asked_about(
    harness: Any,
) -> None:
    """The planner asks in words; the core offers each candidate; the person's pick (what
    the button sends) completes the earlier request in the next turn."""
    tools = {"search_dashboards": _several, "get_health_summary": _health}
    harness.use(tools=tools, model=OfflinePlanner(catalog=TOOL_CATALOG))
    events = await harness.turn("check the health of Sales")
    assert [name for name, _ in _started(events)] == ["search_dashboards"]
    message = next(e for e in events if isinstance(e, MessageEvent))
    assert message.text.startswith("2 dashboards match “Sales” in dev. Which one do you mean?")
    assert "`" not in message.text
    picks = [o.request for o in message.offers if o.kind == "choice"]
    assert picks == ["dashboard 7 in dev", "dashboard 9 in dev"]
    events = await harness.turn(picks[1], conv_id=harness.conv_id)
    assert _started(events) == [("get_health_summary", {"dashboard_id": "9", "env_id": "dev"})]


async def test_a_schema_picked_in_russian_lists_its_tables(harness: Any) -> None:
    harness.use(tools={"superset_explore_database": _explore}, model=OfflinePlanner(
        catalog=TOOL_CATALOG
    ))  # fmt: skip
    events = await harness.turn("покажи таблицы в базе examples")
    message = next(e for e in events if isinstance(e, MessageEvent))
    assert message.text.startswith("В базе examples схем: 2. Таблицы какой из них показать?")
    picks = [o.request for o in message.offers if o.kind == "choice"]
    assert picks == ["схема main в базе examples", "схема public в базе examples"]
    events = await harness.turn(picks[0], conv_id=harness.conv_id)
    expected = {"database": "examples", "schema": "main", "env_id": "dev"}
    assert [(n, {k: v for k, v in a.items() if v is not None}) for n, a in _started(events)] == [
        ("superset_explore_database", expected)
    ]
