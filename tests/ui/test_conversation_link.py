"""``/agent?conv=<conv_id>``: the link the MCP door hands to a client that cannot show a
confirmation opens that conversation with its pending card for its owner (the real core);
another user's conversation is refused with a visible message."""

from __future__ import annotations

from pathlib import Path

import pytest
from nicegui import ui
from nicegui.testing import User

from app.agent.core import AgentCore, Caller, prepare_call
from app.auth import Principal
from app.parts import Parts
from tests.fixtures.pages import page_controller, page_model
from tests.support import principal_for
from tests.waiting import until

PROD = """
[[environment]]
id = "prod"
name = "Production"
url = "http://127.0.0.1:9"
username = "admin"
password = "unused"
tier = "prod"
"""


@pytest.fixture
def prod_env(tmp_path: Path) -> None:
    """A configured prod (never reached: maintenance windows are the product's own rows);
    written before the app starts (it reads its environments file once)."""
    (tmp_path / "environments.toml").write_text(PROD)


async def pending_direct_call(core: AgentCore, principal: Principal) -> str:
    """A guarded call through the core as the MCP door makes it; returns its conversation."""
    conv_id = "mcp-link-test"
    req = await prepare_call(
        core=core,
        caller=Caller(principal=principal, channel="mcp", client="no-forms"),
        tool_name="start_maintenance",
        arguments={"env_id": "prod", "reason": "release"},
        conv_id=conv_id,
        uicontext=None,
    )
    events = [ev async for ev in core.run_call(req)]
    assert events[-1].state == "awaiting_confirmation"  # type: ignore[attr-defined]
    return conv_id


async def test_the_link_opens_the_pending_card_and_confirming_runs_the_call(
    prod_env: None, user: User, sign_in, app_parts: Parts
) -> None:
    await sign_in("admin", username="ops")
    conv_id = await pending_direct_call(app_parts.core, page_controller(user).principal)
    await user.open(f"/agent?conv={conv_id}")
    await user.should_see(marker="confirmation-card", retries=50)
    model = page_model(user)
    assert model.conv_id == conv_id
    assert model.pending_confirmation.metadata.tool_name == "start_maintenance"
    user.find(kind=ui.button, marker="confirm-button").click()
    await user.should_not_see(marker="confirmation-card", retries=100)
    call = next(i for i in model.items if getattr(i, "tool_name", "") == "start_maintenance")
    await until(lambda: call.status == "completed", f"the call never completed: {call}")
    assert not [i for i in model.items if getattr(i, "role", "") == "assistant"]  # no model turn


async def test_another_users_conversation_is_refused_visibly(
    user: User, sign_in, app_parts: Parts
) -> None:
    conv_id = await pending_direct_call(app_parts.core, principal_for(app_parts, "ops", "admin"))
    await sign_in("admin", username="alice")
    await user.open(f"/agent?conv={conv_id}")
    await user.should_see("This conversation belongs to another user.", retries=50)
    model = page_model(user)
    assert model.conv_id != conv_id and model.pending_confirmation is None
