"""How long a call may run: policy.toml's timeout_s at run time, else the tool's
declaration (long tasks: 600 s), else the settings' default."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from app.store.models import Confirmation
from tests.agent.harness import first
from tests.agent.scripted import call, final_from_tool


async def ok(args: Any, deps: Any) -> Any:
    return {"ok": True}


async def slow(args: Any, deps: Any) -> Any:
    await asyncio.sleep(2)
    return {"ok": True}


async def test_policy_file_timeout_applies_at_run_time(harness: Any, tmp_path: Path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text("[tools.search_dashboards]\ntimeout_s = 0.2\n", encoding="utf-8")
    harness.configure(policy_file=policy)
    harness.use(
        call("search_dashboards", query="x"), final_from_tool, tools={"search_dashboards": slow}
    )
    events = await harness.run("find x")
    assert first(events, "tool_start")["timeout_s"] == 0.2
    timeout = first(events, "tool_timeout")
    assert timeout["timeout_s"] == 0.2 and timeout["retryable"] is True


@pytest.mark.parametrize(
    ("proposed", "policy_text", "expected"),
    [
        # a long task waits for its task, whatever the settings' default says
        (call("deploy_dashboard", dashboard_id="1", target_env="prod"), "", 600.0),
        (call("restore_backup", backup_id="b", env_id="dev"), "", 600.0),
        # an ordinary write takes the settings' default (45 s here, not "30 means default")
        (call("start_maintenance", env_id="dev"), "", 45.0),
        # policy.toml overrides a long task's declaration too
        (call("deploy_dashboard", dashboard_id="1", target_env="prod"),
         "[tools.deploy_dashboard]\ntimeout_s = 120\n", 120.0),
    ],
)  # fmt: skip
async def test_timeout_comes_from_policy_then_declaration_then_settings(
    harness: Any,
    tmp_path: Path,
    proposed: Any,
    policy_text: str,
    expected: float,
) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(policy_text, encoding="utf-8")
    harness.configure(tool_timeout_s=45.0, policy_file=policy)
    name = proposed.tool_calls[0]["name"]
    harness.use(proposed, final_from_tool, tools={name: ok})
    conf = first(await harness.run("go", env_id="dev"), "confirm_required")
    # a dangerous call's countdown has run on the server's clock
    with harness.parts.db.session() as s:
        row = s.get(Confirmation, conf["confirmation_id"])
        row.sent_at = row.sent_at - timedelta(seconds=10)
        s.add(row)
    events = await harness.resume(conf["confirmation_id"], "confirm")
    assert first(events, "tool_start")["timeout_s"] == expected
    assert first(events, "tool_end")["status"] == "completed"
