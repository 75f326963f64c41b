"""The /agent page through NiceGUI's user simulation, with a fake agent core."""

from __future__ import annotations

import pytest
from nicegui import ui
from nicegui.testing import User

from app.events import Alternative, MessageEvent, PermissionDeniedEvent
from app.parts import Parts
from tests.fixtures.pages import add_account, page_model
from tests.ui.fakes import FakeClock, FakeEnv, Refused
from tests.ui.made_events import confirm_event, done, message, token

DEEP = "/agent?objectType=dashboard&objectId=42&objectName=Sales&envId=prod"


async def test_unauthenticated_visit_goes_to_login_and_back_to_the_deep_link(
    user: User, core, sign_in
) -> None:
    await user.open(DEEP)
    await user.should_see("Username")
    await user.should_see("Password")
    await sign_in("analyst", target=DEEP)
    await user.should_see("Dashboard · Sales (#42) · prod", retries=30)
    assert page_model(user).ui_context["objectId"] == "42"


async def test_wrong_password_is_shown_inline(user: User, core, app_parts: Parts) -> None:
    add_account(app_parts, "ann", "analyst")
    await user.open("/login")
    user.find(marker="username").type("ann")
    user.find(marker="password").type("nope")
    user.find(kind=ui.button, marker="sign-in").click()
    await user.should_see("Wrong username or password", retries=30)
    await user.should_see(marker="sign-in")


@pytest.mark.parametrize(
    ("query", "object_type", "pill"),
    [
        # full params: context with contextVersion 1
        (
            "?objectType=dashboard&objectId=42&objectName=Sales&envId=dev",
            "dashboard",
            "Dashboard · Sales (#42) · dev",
        ),
        # no params: no context, the pill says so
        ("", None, "No context selected"),
        # malformed objectType: treated as null
        ("?objectType=chart&objectId=42&envId=dev", None, "No context selected"),
    ],
)
async def test_set_context_edges_on_mount(user: User, core, sign_in, query, object_type, pill):
    await sign_in("analyst", target="/agent" + query)
    await user.should_see(pill, retries=30)
    model = page_model(user)
    assert (model.ui_context or {}).get("objectType") == object_type
    if query:
        assert model.ui_context["contextVersion"] == 1


async def test_no_context_pill_in_russian(user: User, core, sign_in) -> None:
    await sign_in("analyst", target="/agent?lang=ru")
    await user.should_see("Контекст не выбран", retries=30)
    await user.should_see("Отправить")
    await user.should_see("Выйти")


async def test_prod_banner_and_warning_background_follow_the_env(user, core, sign_in):
    await sign_in("admin", target=DEEP)
    await user.should_see(marker="prod-banner", retries=30)
    await user.should_see("PRODUCTION")
    panel = user.find(marker="chat-panel").elements.pop()
    assert "bg-warning-light" in panel.classes
    user.find(marker="env-selector").elements.pop().set_value("dev")
    await user.should_not_see(marker="prod-banner")
    assert "bg-warning-light" not in panel.classes and "bg-surface-page" in panel.classes
    assert page_model(user).ui_context["envId"] == "dev"
    user.find(marker="env-selector").elements.pop().set_value("prod")
    await user.should_see(marker="prod-banner")
    assert "bg-warning-light" in panel.classes


async def test_non_prod_env_has_no_banner(user: User, core, sign_in) -> None:
    await sign_in("admin", target="/agent?objectType=dashboard&objectId=1&envId=staging")
    await user.should_see(marker="chat-panel", retries=30)
    await user.should_not_see(marker="prod-banner")
    panel = user.find(marker="chat-panel").elements.pop()
    assert "bg-surface-page" in panel.classes


async def test_tokens_stream_into_a_markdown_answer(user: User, core, sign_in) -> None:
    core.replies = [
        token("Found **3** "),
        token("dashboards"),
        message("Found **3** dashboards"),
        done(),
    ]
    await sign_in("analyst")
    user.find(marker="chat-input").type("find sales").trigger("keydown.enter")
    await user.should_see("find sales", retries=30)
    await user.should_see("Found **3** dashboards", retries=30)
    assert core.sent[0]["message"] == "find sales"


CARD_STATES = [
    # card_state, title, confirm enabled at once
    ("read", "Confirm a read action", True),
    ("write_dev", "Confirm a change in dev", True),
    ("write_staging", "Confirm a change in staging", True),
    ("write_prod", "Confirm a change in PRODUCTION", True),
    ("dangerous", "Dangerous action", False),
]


@pytest.mark.parametrize(("state", "title", "enabled"), CARD_STATES)
async def test_confirmation_card_states(user: User, core, sign_in, state, title, enabled):
    env = {"write_staging": "staging", "write_prod": "prod", "dangerous": "prod"}.get(state, "dev")
    core.replies = [
        confirm_event(
            state,
            env=env,
            dangerous=state == "dangerous",
            countdown_s=10,
            details={"charts": 3} if state == "write_prod" else None,
        ),
        done("awaiting_confirmation"),
    ]
    await sign_in("admin")
    user.find(marker="chat-input").type("do it").trigger("keydown.enter")
    await user.should_see(title, retries=30)
    await user.should_see("deploy_dashboard")
    assert page_model(user).confirm_env_badge == env
    await user.should_see(marker="env-badge")
    confirm = user.find(marker="confirm-button").elements.pop()
    assert confirm.enabled is enabled
    card = user.find(marker="confirmation-card").elements.pop()
    assert any(c.startswith("bg-") for c in card.classes)
    if state == "write_prod":
        await user.should_see('"charts": 3')


@pytest.mark.parametrize(
    ("decision", "loading_title"),
    [
        ("confirm", "Running…"),  # loading_confirm while the resume runs
        ("deny", "Cancelling…"),  # loading_deny while the resume runs
    ],
)
async def test_loading_states_while_resuming(user, core, sign_in, decision, loading_title):
    import asyncio

    gate = asyncio.Event()

    async def slow_resume(req):
        await gate.wait()
        yield message(f"resumed {req['decision']}")
        yield done()

    core.resume = slow_resume
    core.replies = [confirm_event("write_dev"), done("awaiting_confirmation")]
    await sign_in("admin")
    user.find(marker="chat-input").type("deploy").trigger("keydown.enter")
    await user.should_see("Confirm a change in dev", retries=30)
    await user.should_see("Deploy dashboard 42 on dev")  # the one-line description
    if decision == "confirm":
        user.find(marker="confirm-button").click()
    else:  # Cancel denies at once (one click)
        user.find(marker="cancel-button").click()
    await user.should_see(loading_title, retries=30)
    assert page_model(user).card_state == f"loading_{decision}"
    assert not user.find(marker="confirm-button").elements.pop().enabled
    gate.set()
    await user.should_see(f"resumed {decision}", retries=30)
    await user.should_not_see(marker="confirmation-card")


async def test_dangerous_countdown_gates_confirm_with_a_fake_clock(user, core, sign_in):
    core.replies = [
        confirm_event("dangerous", env="prod", dangerous=True, countdown_s=10),
        done("awaiting_confirmation"),
    ]
    core.on_confirm = [message("Dashboard 42 deleted."), done()]
    await sign_in("admin", target=DEEP)
    model = page_model(user)
    clock = FakeClock()
    model.clock = clock
    user.find(marker="chat-input").type("delete this dashboard").trigger("keydown.enter")
    await user.should_see("Confirm available in 10 s", retries=30)
    countdown = user.find(marker="countdown").elements.pop()
    assert countdown.props["aria-live"] == "assertive"
    confirm = user.find(marker="confirm-button").elements.pop()
    for left in (9, 5, 1):
        clock.now = model._countdown_deadline - left
        model.tick()
        await user.should_see(f"Confirm available in {left} s")
        assert confirm.enabled is False
        user.find(marker="confirm-button").click()  # a click on a disabled button does nothing
    assert core.decisions == []
    clock.advance(1)
    model.tick()
    await user.should_see("You can confirm now")
    assert confirm.enabled is True
    user.find(marker="confirm-button").click()
    await user.should_see("Dashboard 42 deleted.", retries=30)
    assert core.decisions[0]["decision"] == "confirm"


async def test_cancel_shows_operation_cancelled_in_russian(user: User, core, sign_in):
    core.replies = [
        confirm_event("dangerous", env="prod", dangerous=True, countdown_s=10),
        done("awaiting_confirmation"),
    ]
    await sign_in("admin", target=DEEP + "&lang=ru")
    user.find(marker="chat-input").type("удали").trigger("keydown.enter")
    await user.should_see("Опасное действие", retries=30)
    await user.should_see("Подтвердить")
    await user.should_see("Подтверждение станет доступно через 10 с")
    user.find(marker="cancel-button").click()  # one click, during the countdown too
    await user.should_see("Операция отменена", retries=30)
    assert core.decisions[0]["decision"] == "deny"


async def test_permission_denied_card_offers_alternatives_that_send_their_prompt(
    user, core, sign_in
):
    def replies(text: str):
        if text == "deploy to prod":
            return [
                PermissionDeniedEvent(
                    tool_name="deploy_dashboard",
                    required_role="admin",
                    alternatives=[
                        Alternative(action="health", prompt="Check health of Sales"),
                        Alternative(action="search", prompt="Find dashboards"),
                    ],
                ),
                done(),
            ]
        return [MessageEvent(text=f"ok: {text}"), done()]

    core.replies = replies
    await sign_in("analyst", target=DEEP)
    user.find(marker="chat-input").type("deploy to prod").trigger("keydown.enter")
    await user.should_see(marker="permission-card", retries=30)
    await user.should_see("'deploy_dashboard' requires the admin role.")
    with user.scope(marker="permission-card"):
        await user.should_not_see("Confirm")
    user.find(kind=ui.button, content="Check health of Sales").click()
    await user.should_see("ok: Check health of Sales", retries=30)
    assert core.sent[-1]["message"] == "Check health of Sales"
    await user.should_not_see(marker="permission-card")


async def test_test_main_configured_as_prod_gets_the_prod_banner_and_the_prod_card(
    user: User, core, sign_in
) -> None:
    core.envs.append(FakeEnv("test-main", "Main test", "prod"))  # tier = "prod" in the file
    core.replies = [confirm_event("write_prod", env="test-main", tier="prod"), done()]
    await sign_in("admin", target="/agent?objectType=dashboard&objectId=7&envId=test-main")
    await user.should_see(marker="prod-banner", retries=30)
    await user.should_see("PRODUCTION")
    panel = user.find(marker="chat-panel").elements.pop()
    assert "bg-warning-light" in panel.classes
    user.find(marker="chat-input").type("deploy it").trigger("keydown.enter")
    await user.should_see("Confirm a change in PRODUCTION", retries=30)
    await user.should_see("test-main · prod")
    card = user.find(marker="confirmation-card").elements.pop()
    assert "bg-orange-100" in card.classes  # the write_prod tone, not staging's amber


async def test_a_deep_link_to_an_env_outside_the_list_asks_the_resolver(
    user: User, core, sign_in
) -> None:
    await sign_in("admin", target="/agent?envId=team-dev")
    await user.should_see(marker="chat-panel", retries=30)
    await user.should_not_see(marker="prod-banner")  # the resolver derives dev from the id
    await user.open("/agent?envId=qa-box")
    await user.should_see(marker="prod-banner", retries=30)  # unknown → prod


async def test_a_refused_turn_shows_a_message_in_the_pages_language(
    user: User, core, sign_in
) -> None:
    core.refuse = Refused(422, "history_too_long", "at most 50 items")
    await sign_in("analyst", target="/agent?lang=ru")
    user.find(marker="chat-input").type("привет").trigger("keydown.enter")
    await user.should_see("Диалог слишком длинный", retries=30)
    assert page_model(user).state == "error"
