"""Connection states, and restoring a conversation on reload or in a second tab."""

from __future__ import annotations

import pytest
from nicegui.testing import User

from tests.fixtures.pages import page_controller, page_model
from tests.ui.fakes import FakeConversation
from tests.ui.made_events import confirm_event, done, message


@pytest.mark.parametrize(
    ("state", "text"),
    [
        ("idle", "Ready"),  # nothing running
        ("streaming", "The agent is working…"),  # a stream is open
        ("awaiting_confirmation", "Waiting for your confirmation"),  # a card is up
        ("error", "Something went wrong"),  # the last turn failed
        ("disconnected", "Connection lost — reconnecting…"),  # reconnecting notice
        ("disconnected_permanent", "Reload the page to continue."),  # reload prompt
    ],
)
async def test_connection_banner_shows_each_state(user: User, core, sign_in, state, text):
    await sign_in("analyst")
    page_model(user).state = state  # the banner binds to whatever the state is
    await user.should_see(text, retries=10)
    if state == "disconnected_permanent":
        await user.should_see(marker="reload-button")
    else:
        await user.should_not_see(marker="reload-button")


async def test_a_dropped_stream_that_never_recovers_ends_in_a_reload_prompt(
    user: User, core, sign_in
) -> None:
    async def down(principal, conv_id):
        raise ConnectionError("agent unreachable")

    core.fail_stream = ConnectionError("agent unreachable")
    core.conversation = down
    await sign_in("analyst")
    page_controller(user).reconnect_delays_s = (0.0, 0.0)
    user.find(marker="chat-input").type("hello").trigger("keydown.enter")
    await user.should_see("Reload the page to continue.", retries=30)
    await user.should_see(marker="reload-button")


async def test_reload_restores_history_and_pending_confirmation(user: User, core, sign_in):
    core.replies = [
        message("Are you sure?"),
        confirm_event("dangerous", env="prod", dangerous=True, countdown_s=10),
        done("awaiting_confirmation"),
    ]
    await sign_in("admin")
    user.find(marker="chat-input").type("delete dashboard 42").trigger("keydown.enter")
    await user.should_see("Dangerous action", retries=30)
    conv_id = page_model(user).conv_id
    core.conv = FakeConversation(
        messages=[
            {"role": "user", "text": "delete dashboard 42"},
            {"role": "assistant", "text": "Are you sure?"},
        ],
        tool_calls=[
            {"call_id": "call-1", "tool_name": "search_dashboards", "tool_args": {"q": "x"}},
            {"call_id": "call-9", "tool_name": "delete_dashboard", "tool_args": {}},
        ],
        pending=confirm_event("dangerous", env="prod", dangerous=True, countdown_s=10),
    )
    await user.open("/agent")  # a reload, or the same conversation in a second tab
    await user.should_see("delete dashboard 42", retries=30)
    await user.should_see("Are you sure?")
    await user.should_see("Dangerous action")
    model = page_model(user)
    assert model.conv_id == conv_id and model.card_state == "dangerous"
    assert model.dangerous_countdown_active
    # the finished call comes back as a card; the pending one is the confirmation card
    await user.should_see(marker="tool-card")
    assert {el.text for el in user.find(marker="tool-name").elements} == {"search_dashboards"}


async def test_new_conversation_clears_the_chat(user: User, core, sign_in) -> None:
    core.replies = [message("first answer"), done()]
    await sign_in("analyst")
    user.find(marker="chat-input").type("hi").trigger("keydown.enter")
    await user.should_see("first answer", retries=30)
    old = page_model(user).conv_id
    user.find(marker="new-conversation").click()
    await user.should_not_see("first answer")
    assert page_model(user).conv_id != old
