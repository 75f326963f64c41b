"""The /agent page against the real agent handler (offline planner, no Superset)."""

from __future__ import annotations

import pytest
from nicegui import app, ui
from nicegui.testing import User

from tests.fixtures.pages import page_model
from tests.waiting import until


@pytest.mark.app_env(dangerous_countdown_s=1)  # read when the user fixture runs main.py
async def test_dangerous_delete_goes_through_the_real_confirmation(user: User, sign_in) -> None:
    await sign_in("admin", target="/agent?envId=prod")
    await user.should_see(marker="prod-banner", retries=30)
    user.find(marker="chat-input").type("delete dashboard 42").trigger("keydown.enter")
    await user.should_see("Dangerous action", retries=100)
    model = page_model(user)
    assert model.card_state == "dangerous"
    assert model.pending_confirmation.metadata.tool_name == "delete_dashboard"
    assert not user.find(marker="confirm-button").elements.pop().enabled
    await user.should_see("You can confirm now", retries=40)
    user.find(kind=ui.button, marker="confirm-button").click()
    await user.should_see(marker="tool-card", retries=100)
    await user.should_not_see(marker="confirmation-card", retries=100)
    call = next(i for i in model.items if getattr(i, "tool_name", "") == "delete_dashboard")
    assert call.status in ("completed", "failed")


async def test_analyst_gets_the_permission_denied_card(user: User, sign_in) -> None:
    await sign_in("analyst", target="/agent?envId=prod")
    user.find(marker="chat-input").type("start maintenance on prod").trigger("keydown.enter")
    await user.should_see(marker="chat-items", retries=30)
    await until(
        lambda: page_model(user).state == "idle" and len(page_model(user).items) > 1,
        "the turn never ended",
    )
    model = page_model(user)
    assert model.card_state == ""  # never a confirmation for a forbidden call
    assert model.permission_denied.tool_name == "start_maintenance"
    await user.should_see(marker="permission-card")
    await user.should_see("'start_maintenance' requires the admin role.")
    prompt = model.permission_alternatives[0]["prompt"]
    user.find(kind=ui.button, content=prompt).click()
    await until(
        lambda: any(getattr(i, "text", "") == prompt for i in model.items), "no such message"
    )
    assert any(getattr(i, "text", "") == prompt and i.role == "user" for i in model.items)


async def test_the_app_ends_its_turns_and_closes_its_checkpointer_at_shutdown(
    user: User, sign_in
) -> None:
    """A turn still running when the app stops gets its grace period, then the
    checkpointer closes (``AgentCore.aclose``): the app registers it, in tests too."""
    await sign_in("admin", target="/agent")
    core = app.state.parts.core
    assert any(
        getattr(handler, "__self__", None) is core and handler.__name__ == "aclose"
        for handler in app._shutdown_handlers
    )
