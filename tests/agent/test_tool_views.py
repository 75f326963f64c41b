"""The tool node puts the result's typed view on tool_end, next to the unchanged text."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from app.agent.tool_result import present
from app.auth import Principal
from app.errors import NoEnvironmentError
from app.planner import OfflinePlanner
from app.tools import TOOLS
from app.tools.catalog import TOOL_CATALOG
from tests.agent.harness import first


def _registry(urls: dict[str, str]) -> Any:
    def get(env_id: str) -> Any:
        if env_id not in urls:
            raise NoEnvironmentError(f"unknown environment {env_id!r}")
        return SimpleNamespace(url=urls[env_id])

    return SimpleNamespace(registry=SimpleNamespace(get=get))


def test_links_point_into_the_superset_of_the_results_environment() -> None:
    deps = _registry({"dev": "http://dev:8088", "prod": "https://prod.example"})
    result = {"env": "prod", "count": 1, "dashboards": [{"id": 5, "title": "Ops"}]}
    view = present(TOOLS["search_dashboards"], result, deps, "dev")
    assert view is not None and view.items[0].url == "https://prod.example/superset/dashboard/5/"


def test_an_unknown_environment_gives_a_view_without_links() -> None:
    view = present(TOOLS["search_dashboards"], {"dashboards": [{"id": 5}]}, _registry({}), "x")
    assert view is not None and view.items[0].url is None


def test_a_result_that_cannot_be_presented_has_no_view() -> None:
    odd = {"dashboard": {"id": 1}, "charts": [{"id": 2, "status": "ok", "slow": True, "ms": "?"}]}
    assert present(TOOLS["get_health_summary"], odd, _registry({}), None) is None


async def test_tool_end_carries_the_view_and_the_text(harness: Any) -> None:
    async def search(args: Any, deps: Any) -> dict[str, Any]:
        return {"env": "dev", "count": 1, "dashboards": [{"id": 7, "title": "Sales demo"}]}

    harness.use(tools={"search_dashboards": search}, model=OfflinePlanner(catalog=TOOL_CATALOG))
    events = await harness.run("find dashboards about sales in dev")
    end = first(events, "tool_end")
    assert end["status"] == "completed" and "Sales demo" in end["result"]
    assert end["view"]["kind"] == "linked_list"
    assert end["view"]["items"][0]["title"] == "Sales demo"


async def test_a_restored_conversation_keeps_each_results_view(harness: Any) -> None:
    async def search(args: Any, deps: Any) -> dict[str, Any]:
        return {"env": "dev", "count": 1, "dashboards": [{"id": 7, "title": "Sales demo"}]}

    harness.use(tools={"search_dashboards": search}, model=OfflinePlanner(catalog=TOOL_CATALOG))
    await harness.run("find dashboards about sales in dev")
    assert harness.core is not None
    view = await harness.core.conversation(Principal("alice", "admin"), harness.conv_id)
    row = view.tool_calls[0]
    assert row["status"] == "completed" and row["view"]["kind"] == "linked_list"
    assert row["view"]["items"][0]["title"] == "Sales demo"
