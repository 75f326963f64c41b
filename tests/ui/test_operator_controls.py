"""The /agent page's operator controls, with the NiceGUI user simulation: the
edit form, the reason of a cancellation, Stop, the conversation drawer, and a reload that
brings back tool cards (against the real core)."""

from __future__ import annotations

import asyncio

from nicegui import ui
from nicegui.testing import User
from nicegui.testing.user_interaction import UserInteraction

from app.events import (
    ConfirmRequiredEvent,
    StoppedEvent,
    ToolEndEvent,
    ToolStartEvent,
)
from app.screen.argsform import EditField
from components.card_forms import edit_field
from tests.events import confirm_card
from tests.fixtures.pages import page_model
from tests.ui.fakes import FakeConversation, FakeCore, FakeSummary
from tests.ui.made_events import confirm_event, done, message
from tests.waiting import until


def deploy_card(target: str, cid: str = "conf-1") -> ConfirmRequiredEvent:
    args = {"dashboard_id": "42", "source_env": None, "target_env": target}
    description = f"Deploy dashboard 42 to {target}"
    return confirm_card(
        "deploy_dashboard", args, env=target, confirmation_id=cid, description=description
    )


async def _card(user: User, core, sign_in) -> None:
    core.replies = [deploy_card("staging"), done("awaiting_confirmation")]
    await sign_in("admin")
    user.find(marker="chat-input").type("deploy 42 to staging").trigger("keydown.enter")
    await user.should_see("Confirm a change in staging", retries=30)


def _set(user: User, marker: str, value: object) -> None:
    user.find(marker=marker).elements.pop().value = value


async def test_the_edit_form_sends_edited_args_and_a_new_prod_card_replaces_the_old(
    user: User, core, sign_in
) -> None:
    core.on_confirm = [deploy_card("prod", cid="conf-2"), done("awaiting_confirmation")]
    await _card(user, core, sign_in)
    user.find(kind=ui.button, marker="edit-button").click()
    await user.should_see(marker="edit-form")
    await user.should_see(marker="edit-field-target_env")
    _set(user, "edit-field-target_env", "prod")
    user.find(kind=ui.button, marker="edit-submit").click()
    await user.should_see("Confirm a change in PRODUCTION", retries=30)
    assert core.decisions[-1]["decision"] == "confirm"
    assert core.decisions[-1]["args"] == {"dashboard_id": "42", "target_env": "prod"}
    model = page_model(user)
    assert model.pending_confirmation.confirmation_id == "conf-2"
    assert model.card_state == "write_prod" and model.card_form == ""


async def test_the_edit_form_shows_the_args_models_messages_and_esc_closes_it(
    user: User, core, sign_in
) -> None:
    await _card(user, core, sign_in)
    user.find(kind=ui.button, marker="edit-button").click()
    await user.should_see(marker="edit-field-dashboard_id")
    # each field says what its argument is, under it (the field's hint: no hover needed)
    target = user.find(marker="edit-field-target_env").elements.pop()
    assert target.props["hint"] == "Environment to deploy to (e.g. 'staging', 'prod')."
    _set(user, "edit-field-dashboard_id", "")
    user.find(kind=ui.button, marker="edit-submit").click()
    await user.should_see("String should have at least 1 character", retries=10)
    assert core.decisions == []  # nothing sent: the confirmation is not spent
    user.find(marker="edit-form").trigger("keydown.esc")
    await user.should_not_see(marker="edit-form", retries=10)
    await user.should_see(marker="confirm-button")


async def test_on_the_russian_page_the_edit_form_is_labelled_and_explained_in_russian(
    user: User, core, sign_in
) -> None:
    core.replies = [deploy_card("staging"), done("awaiting_confirmation")]
    await sign_in("admin", target="/agent?lang=ru")
    user.find(marker="chat-input").type("разверни 42 в staging").trigger("keydown.enter")
    await user.should_see(marker="edit-button", retries=30)
    user.find(kind=ui.button, marker="edit-button").click()
    await user.should_see(marker="edit-field-target_env")
    target = user.find(marker="edit-field-target_env").elements.pop()
    assert target.props["label"] == "Куда *"  # required
    assert target.props["hint"] == "Окружение, в которое развернуть (например, staging или prod)."
    source = user.find(marker="edit-field-source_env").elements.pop()
    assert source.props["label"] == "Откуда"
    assert source.props["hint"] == "Окружение, из которого копировать; пусто — выбранное."


async def test_cancel_sends_the_optional_reason_typed_on_the_card(
    user: User, core, sign_in
) -> None:
    core.on_deny = [message("Cancelled — not deploying dashboard 42: wrong env."), done()]
    await _card(user, core, sign_in)
    await user.should_see(marker="deny-reason")  # on the card, before any click
    user.find(marker="deny-reason").type("wrong env")
    user.find(kind=ui.button, marker="cancel-button").click()
    await user.should_see("not deploying dashboard 42: wrong env", retries=30)
    assert core.decisions[-1]["decision"] == "deny"
    assert core.decisions[-1]["reason"] == "wrong env"


async def test_send_becomes_stop_and_stop_ends_the_turn(user: User, core, sign_in) -> None:
    core.hold = asyncio.Event()
    core.replies = [ToolStartEvent(call_id="r1", tool_name="search_dashboards")]
    core.on_stop = [
        StoppedEvent(),
        ToolEndEvent(call_id="r1", tool_name="search_dashboards", status="cancelled"),
        message("Stopped."),
        done(),
    ]
    await sign_in("analyst")
    user.find(marker="chat-input").type("find sales").trigger("keydown.enter")
    await user.should_see(marker="stop-button", retries=30)
    await user.should_not_see(marker="send-button")
    user.find(kind=ui.button, marker="stop-button").click()
    await user.should_see(marker="send-button", retries=30)
    assert core.stops == [page_model(user).conv_id]
    await user.should_see("Cancelled")  # the read's card
    assert page_model(user).state == "idle"


async def test_a_stop_accepted_by_a_busy_replica_says_so_until_the_turn_stops(
    user: User, core, sign_in
) -> None:
    core.hold = asyncio.Event()
    core.stop_accepted = asyncio.Event()  # the turn runs on a replica that answers late
    core.replies = [ToolStartEvent(call_id="r1", tool_name="search_dashboards")]
    core.on_stop = [StoppedEvent(), done()]
    await sign_in("analyst")
    user.find(marker="chat-input").type("find sales").trigger("keydown.enter")
    await user.should_see(marker="stop-button", retries=30)
    user.find(kind=ui.button, marker="stop-button").click()
    await user.should_see("Stop requested. The server running this turn is busy", retries=30)
    await user.should_see("Stopping…")
    core.stop_accepted.set()  # its next step honours the stop
    await user.should_see("Stopped.", retries=30)
    await user.should_not_see("Stop requested.", retries=30)
    assert page_model(user).state == "idle"


def a_backup_going_on_after_a_stop(core: FakeCore, call_id: str) -> None:
    """The core's next turn starts the write ``run_backup`` (``call_id``) and holds; a
    stop answers that this write goes on."""
    core.hold = asyncio.Event()
    core.replies = [ToolStartEvent(call_id=call_id, tool_name="run_backup", is_write_tool=True)]
    core.on_stop = [StoppedEvent(writes_in_flight=[call_id]), done()]


async def send_and_stop(user: User, text: str) -> None:
    """Send ``text`` and press Stop once the turn runs."""
    user.find(marker="chat-input").type(text).trigger("keydown.enter")
    await user.should_see(marker="stop-button", retries=30)
    user.find(kind=ui.button, marker="stop-button").click()


async def test_a_write_that_goes_on_after_stop_updates_its_card_when_it_ends(
    user: User, core, sign_in
) -> None:
    a_backup_going_on_after_a_stop(core, "w1")
    core.followed = [ToolEndEvent(call_id="w1", tool_name="run_backup", status="completed")]
    await sign_in("admin")
    await send_and_stop(user, "back up dev")
    await user.should_see(marker="tool-goes-on", retries=30)
    await user.should_see("A change already under way goes on")
    core.release_follow.set()
    await user.should_not_see(marker="tool-goes-on", retries=30)
    await user.should_see("Done")
    assert page_model(user).tool_call("w1").status == "completed"


async def test_the_drawer_lists_conversations_and_opening_one_restores_it(
    user: User, core, sign_in
) -> None:
    core.summaries = [
        FakeSummary(
            "c-2",
            "deploy 42 to prod",
            env_id="prod",
            object_type="dashboard",
            pending_confirmation=True,
        ),
        FakeSummary("c-1", "find sales", env_id="dev"),
    ]
    core.conversations_by_id["c-2"] = FakeConversation(
        messages=[{"role": "user", "text": "deploy 42 to prod", "position": 0}],
        tool_calls=[
            {"call_id": "s1", "tool_name": "search_dashboards", "status": "completed",
             "result": "[]", "position": 1},
            {"call_id": "call-9", "tool_name": "deploy_dashboard", "status": "pending",
             "position": 2},
        ],
        pending=confirm_event("write_prod", env="prod"),
        turn={"object_type": "dashboard", "selected_env": "prod",
              "uicontext": {"objectType": "dashboard", "objectId": "42", "envId": "prod"}},
    )  # fmt: skip
    await sign_in("admin")
    user.find(kind=ui.button, marker="conversations-button").click()
    await user.should_see("deploy 42 to prod", retries=30)
    await user.should_see("find sales")
    await user.should_see(marker="pending-badge")
    await user.should_see("Dashboard · prod")
    user.find(marker="conversation-title", content="deploy 42 to prod").trigger("click")
    await user.should_see("Confirm a change in PRODUCTION", retries=30)
    await user.should_see(marker="tool-card")
    model = page_model(user)
    assert model.conv_id == "c-2" and user.client.storage is not None
    assert (model.ui_context or {}).get("objectId") == "42"
    # archive the older entry ("find sales"): the second archive button of the list
    second = sorted(user.find(marker="archive-button").elements, key=lambda e: e.id)[-1]
    UserInteraction(user, {second}, None).click()
    await user.should_not_see("find sales", retries=30)
    assert core.updates[-1] == {"conv_id": "c-1", "title": None, "archived": True}
    # rename the one left
    user.find(kind=ui.button, marker="rename-button").click()
    user.find(marker="rename-input").clear().type("Prod deploy")
    user.find(kind=ui.button, marker="rename-save").click()
    await user.should_see(marker="conversation-title", content="Prod deploy", retries=30)
    assert core.updates[-1]["title"] == "Prod deploy"


async def test_new_conversation_keeps_the_old_one_in_the_drawer(user: User, core, sign_in) -> None:
    core.replies = [message("Hello."), done()]
    await sign_in("analyst")
    first = page_model(user).conv_id
    user.find(marker="chat-input").type("hello").trigger("keydown.enter")
    await user.should_see("Hello.", retries=30)
    core.summaries = [FakeSummary(first, "hello")]
    user.find(kind=ui.button, marker="new-conversation").click()
    user.find(kind=ui.button, marker="conversations-button").click()
    await user.should_see(marker="conversation-entry", retries=30)
    assert page_model(user).conv_id != first
    await user.should_see("hello")


async def test_a_reload_restores_tool_cards_from_the_real_core(user: User, sign_in) -> None:
    await sign_in("analyst")
    user.find(marker="chat-input").type("what can you do?").trigger("keydown.enter")
    await user.should_see(marker="tool-card", retries=100)
    await until(lambda: page_model(user).state == "idle", "the turn never ended")
    await user.open("/agent")  # a reload: a new page, the same conversation
    await user.should_see(marker="tool-card", retries=50)
    await user.should_see("show_capabilities")


async def test_a_write_that_ended_before_the_page_listened_is_read_from_the_conversation(
    user: User, core, sign_in
) -> None:
    a_backup_going_on_after_a_stop(core, "w2")
    core.release_follow.set()  # the run is over: nothing left to follow
    await sign_in("admin")
    core.conv = FakeConversation(
        tool_calls=[{"call_id": "w2", "tool_name": "run_backup", "status": "completed",
                     "result": '{"backup_id": "b1"}'}],
    )  # fmt: skip
    await send_and_stop(user, "back up dev")
    call = await until(
        lambda: (
            (c := page_model(user).tool_call("w2")) is not None and c.status == "completed" and c
        ),
        "the write's card never showed its outcome",
    )
    assert call.status == "completed" and not call.goes_on
    assert page_model(user).writes_going_on == set()


async def test_a_switch_says_what_its_argument_is_under_it(user: User) -> None:
    """A switch has no hint of its own (Quasar's toggle): a caption under it says it."""

    @ui.page("/switch-hint")
    def page() -> None:
        edit_field(EditField(name="dry_run", label="Dry Run", kind="bool", hint="Plan only."))

    await user.open("/switch-hint")
    await user.should_see(marker="edit-field-dry_run")
    await user.should_see("Plan only.", marker="edit-hint-dry_run")
