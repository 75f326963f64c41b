"""Faults seen through the whole agent (events a person sees), with the product's real tools
against the Superset sandbox: a 502 proxy, a hanging write, a Superset that is not there."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.sandbox import Sandbox
from app.superset.environments import Environment
from app.superset.registry import EnvironmentRegistry, load_environments
from tests.agent.harness import first, types_of
from tests.agent.scripted import call, final_from_tool
from tests.integration.test_faults import FaultProxy, _env_through, _free_port, proxy
from tests.waiting import WAIT_S

pytestmark = pytest.mark.superset
__all__ = ["proxy"]


@pytest.fixture
async def registry_slot() -> AsyncIterator[list[EnvironmentRegistry]]:
    """The registries a test served (closed at teardown)."""
    slot: list[EnvironmentRegistry] = []
    yield slot
    for reg in slot:
        await reg.aclose()


def _use(harness: Any, slot: list[EnvironmentRegistry], env: Environment) -> None:
    reg = EnvironmentRegistry([env])
    slot.append(reg)
    harness.serve(reg)


async def test_read_502_once_shows_one_retry_then_success(
    harness: Any, proxy: FaultProxy, superset_sandbox: Sandbox, registry_slot: Any
) -> None:
    proxy.fail = lambda method, path: method == "GET" and path == "/api/v1/dashboard/"
    _use(harness, registry_slot, _env_through(superset_sandbox, proxy.port))
    harness.use(call("search_dashboards", query="Sales", env_id="dev"), final_from_tool, real=True)
    events = await harness.run("find dashboards about Sales")
    assert types_of(events).count("tool_retry") == 1
    end = first(events, "tool_end")
    assert end["status"] == "completed" and "Sales Overview" in end["result"]


async def _create_dataset_confirmed(harness: Any, table_name: str) -> list[dict[str, Any]]:
    """The model asks to create dataset ``table_name`` (``select 1 as x`` on the Sales
    database in dev) with the product's tools; its card is confirmed. The resume's events."""
    harness.use(
        call(
            "superset_create_dataset",
            database="Sales",
            table_name=table_name,
            sql="select 1 as x",
            env_id="dev",
        ),
        final_from_tool,
        real=True,
    )
    conf = first(await harness.run("create the dataset"), "confirm_required")
    return await harness.resume(conf["confirmation_id"], "confirm")


async def test_write_502_is_not_retried(
    harness: Any, proxy: FaultProxy, superset_sandbox: Sandbox, registry_slot: Any
) -> None:
    proxy.fail = lambda method, path: method == "POST" and path == "/api/v1/dataset/"
    _use(harness, registry_slot, _env_through(superset_sandbox, proxy.port))
    name = f"fault_{uuid.uuid4().hex[:8]}"
    events = await _create_dataset_confirmed(harness, name)
    assert "tool_retry" not in types_of(events)
    end = first(events, "tool_end")
    assert end["status"] == "failed" and "502" in end["error"] and end["retryable"] is False
    assert proxy.seen.count("POST /api/v1/dataset/") == 1


async def test_superset_stopped_gives_a_clear_error_and_nothing_hangs(
    harness: Any, registry_slot: Any
) -> None:
    env = Environment(  # a long HTTP timeout: an answer within WAIT_S was never a timeout
        id="dev",
        url=f"http://127.0.0.1:{_free_port()}",
        username="admin",
        password="x",
        tier="dev",
        timeout=600,
    )
    _use(harness, registry_slot, env)
    harness.use(call("search_dashboards", query="x", env_id="dev"), final_from_tool, real=True)
    started = time.monotonic()
    events = await harness.run("find x")
    assert time.monotonic() - started < WAIT_S  # refused at once, nothing hangs
    end = first(events, "tool_end")
    assert end["status"] == "failed" and end["retry_exhausted"] is True
    assert "unreachable" in end["error"] and events[-1]["type"] == "done"


async def test_hanging_write_shows_tool_timeout_with_status_unknown(
    harness: Any,
    proxy: FaultProxy,
    superset_sandbox: Sandbox,
    registry_slot: Any,
) -> None:
    harness.configure(tool_timeout_s=1)  # the 30 s default, shortened
    proxy.hang = lambda method, path: method == "POST" and path == "/api/v1/dataset/"
    _use(harness, registry_slot, _env_through(superset_sandbox, proxy.port))
    events = await _create_dataset_confirmed(harness, "hang_y")
    timeout = first(events, "tool_timeout")
    assert timeout["status_unknown"] is True and timeout["retryable"] is False
    assert "check superset" in timeout["message"].lower()


async def test_migration_confirmation_shows_the_preflight_diff(
    harness: Any, superset_envs_file: Any, registry_slot: Any
) -> None:
    reg = load_environments(superset_envs_file)
    registry_slot.append(reg)
    harness.serve(reg)
    harness.use(
        call(
            "execute_migration",
            dashboard_ids=["marketing-funnel"],
            source_env="dev",
            target_env="prod",
        ),
        final_from_tool,
        real=True,
    )
    events = await harness.run("migrate marketing funnel from dev to prod")
    conf = first(events, "confirm_required")
    meta = conf["metadata"]
    assert meta["env_context"] == "prod" and meta["risk_level"] == "guarded"
    details = meta["details"]
    assert not details.get("errors")
    assert "Marketing Funnel" in str(details) and "create" in str(details)
    denied = await harness.resume(conf["confirmation_id"], "deny", reason="just looking")
    assert first(denied, "tool_end")["status"] == "cancelled"
