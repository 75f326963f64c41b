"""AgentChatModel without any UI or core: context, tiers it is told, countdown, the guards of
its actions, and its transitions."""

from __future__ import annotations

from typing import Any

import pytest

from app.agent.core.edits import args_messages, args_schema
from app.agent.rules import default_policy
from app.screen.chat_model import AgentChatModel
from app.screen.items import ToolCall
from app.screen.permission import PermissionDenial
from app.screen.uicontext import EnvOption
from tests.ui.fakes import FakeClock
from tests.ui.made_events import confirm_event

ENV_OPTIONS = [EnvOption("dev", "Dev", "dev"), EnvOption("staging", "Stg", "staging")]
ENV_OPTIONS += [EnvOption("prod", "Prod", "prod"), EnvOption("test-main", "Main", "prod")]


class Intents:
    """Records what the model hands the controller."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.decided: list[tuple[str, str | None]] = []
        self.args: list[Any] = []
        self.stops = 0

    async def send(self, text: str) -> None:
        self.sent.append(text)

    async def decide(self, decision: str, reason: str | None, args: Any = None) -> None:
        self.decided.append((decision, reason))
        self.args.append(args)

    async def stop(self) -> None:
        self.stops += 1

    def args_schema(self, tool_name: str, lang: str = "en") -> dict[str, Any]:
        return args_schema(default_policy(), tool_name, lang)

    def validate_args(self, tool_name: str, args: Any, lang: str = "en") -> dict[str, str]:
        return args_messages(default_policy(), tool_name, args, lang)


def make(**kw) -> tuple[AgentChatModel, FakeClock, Intents]:
    clock, intents = FakeClock(), Intents()
    model = AgentChatModel(role="admin", clock=clock, **kw)
    model.set_environments(ENV_OPTIONS)
    model.connect(intents)
    return model, clock, intents


FULL = {"objectType": "dashboard", "objectId": "42", "objectName": "Sales", "envId": "prod"}


@pytest.mark.parametrize(
    ("params", "expected_type", "pill"),
    [
        # full params: a context with contextVersion 1 and a descriptive pill
        (FULL, "dashboard", "Dashboard · Sales (#42) · prod"),
        # no name: the id alone, not an empty name before "(#42)"
        (
            {k: v for k, v in FULL.items() if k != "objectName"},
            "dashboard",
            "Dashboard · #42 · prod",
        ),
        # no params: no context at all
        ({}, None, "No context selected"),
        # malformed objectType is treated as null (the pill says no context)
        ({**FULL, "objectType": "dashbored"}, None, "No context selected"),
    ],
)
def test_set_ui_context_from_params_edges(params, expected_type, pill) -> None:
    model, _, _ = make()
    model.set_ui_context_from_params(params)
    assert (model.ui_context or {}).get("objectType") == expected_type
    if params:
        assert model.ui_context["contextVersion"] == 1
    else:
        assert model.ui_context is None
    assert model.context_pill_label == pill


def test_over_long_fields_are_cut_to_the_servers_limits_and_a_bad_env_id_dropped() -> None:
    model, _, _ = make()
    model.set_ui_context_from_params({**FULL, "objectName": "x" * 300, "envId": "prod eu!"})
    assert len(model.ui_context["objectName"]) == 256  # UIContext.objectName max_length
    assert model.ui_context["envId"] is None and model.active_env_id is None


def test_no_context_pill_is_russian_in_russian() -> None:
    model, _, _ = make(lang="ru")
    model.set_ui_context_from_params({})
    assert model.context_pill_label == "Контекст не выбран"


@pytest.mark.parametrize(
    ("env", "is_prod"),
    [
        ("prod", True),  # told tier prod
        ("test-main", True),  # configured tier prod wins over its name
        ("dev", False),  # told tier dev
        ("staging", False),  # told tier staging
        ("mystery", True),  # nobody told the model its tier: prod (fail safe)
        (None, False),  # no env selected: nothing to warn about
    ],
)
def test_update_active_env_drives_prod_flag_and_syncs_context(env, is_prod) -> None:
    model, _, _ = make()
    model.set_ui_context_from_params(FULL)
    model.update_active_env(env)
    assert model.is_prod_context is is_prod
    assert model.ui_context["envId"] == env
    assert model.active_env_id == env


def test_a_tier_learned_for_an_env_outside_the_list_is_what_the_banner_follows() -> None:
    model, _, _ = make()
    model.set_ui_context_from_params({"envId": "team-dev"})
    assert model.is_prod_context  # not told yet: prod
    model.learn_env_tier("team-dev", "dev")
    assert not model.is_prod_context


def test_dangerous_countdown_gates_confirm_until_zero() -> None:
    model, clock, _ = make()
    model.show_confirmation(confirm_event("dangerous", dangerous=True, countdown_s=10))
    assert model.dangerous_countdown == 10 and not model.confirm_enabled
    clock.advance(3.2)
    model.tick()
    assert model.dangerous_countdown == 7 and not model.confirm_enabled
    assert model.countdown_text == "Confirm available in 7 s"
    clock.advance(6.7)
    model.tick()
    assert model.dangerous_countdown == 1 and not model.confirm_enabled
    clock.advance(0.2)
    model.tick()
    assert model.dangerous_countdown == 0 and model.confirm_enabled
    assert not model.dangerous_countdown_active


async def test_confirm_is_refused_during_countdown_and_handed_on_after() -> None:
    model, clock, intents = make()
    model.show_confirmation(confirm_event("dangerous", dangerous=True, countdown_s=10))
    assert await model.confirm() is False
    assert intents.decided == []
    clock.advance(10)
    model.tick()
    assert await model.confirm() is True
    assert intents.decided == [("confirm", None)]


async def test_deny_hands_on_the_reason() -> None:
    model, _, intents = make()
    model.show_confirmation(confirm_event("write_prod", env="prod"))
    assert await model.deny("wrong env") is True
    assert intents.decided == [("deny", "wrong env")]


async def test_no_decision_without_a_card() -> None:
    model, _, intents = make()
    assert await model.confirm() is False and await model.deny() is False
    assert intents.decided == []


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "Operation cancelled"),  # the agent's cancellation message
        ("ru", "Операция отменена"),  # the same in Russian
    ],
)
def test_an_unanswered_denial_says_operation_cancelled(lang, text) -> None:
    model, _, _ = make(lang=lang)
    model.show_confirmation(confirm_event("write_prod", env="prod"))
    assert model.begin_decision("deny") == "conf-1"
    assert model.card_state == "loading_deny" and model.state == "streaming"
    model.end_stream()
    model.end_decision("deny", answered=False)
    assert model.items[-1].text == text
    assert model.pending_confirmation is None and model.state == "idle"


def test_begin_turn_returns_the_history_before_the_message_and_refuses_while_busy() -> None:
    model, _, _ = make()
    assert model.begin_turn("first") == []
    assert model.state == "streaming"
    assert model.begin_turn("second") is None  # a turn is running
    model.add_message("assistant", "Hi")
    model.end_stream()
    assert model.begin_turn("  ") is None  # nothing to send
    assert model.begin_turn("second") == [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "Hi"},
    ]


async def test_send_is_handed_on_only_when_the_screen_allows_a_turn() -> None:
    model, _, intents = make()
    await model.send("hello")
    model.show_confirmation(confirm_event("write_dev"))
    await model.send("another")  # a card is up: no new turn
    assert intents.sent == ["hello"]


async def test_retry_resends_the_last_user_message_only_when_offered() -> None:
    model, _, intents = make()
    model.add_message("user", "find sales")
    call = ToolCall(call_id="a", tool_name="search_dashboards", status="failed")
    call.refresh_actions()
    await model.retry(call)
    done_call = ToolCall(call_id="b", tool_name="search_dashboards", status="completed")
    await model.retry(done_call)
    assert intents.sent == ["find sales"]


def test_a_confirmed_call_without_a_sentence_after_it_leaves_the_steps_at_the_answer() -> None:
    """A direct call (an Undo offer) confirmed: its tool ran and the stream ended with no
    model sentence; the page is Ready, so the strip no longer says "Running tools"."""
    model, _, _ = make()
    model.show_confirmation(confirm_event("write_dev"))
    model.begin_decision("confirm")
    model.set_step("tools")  # the tool's events
    model.turn_done("idle")  # done: the loading card is still up
    model.end_stream()
    model.end_decision("confirm", answered=False)
    assert model.state == "idle" and model.process_step == "answer"


def test_show_error_clears_a_loading_card_and_sets_error() -> None:
    model, _, _ = make()
    model.show_confirmation(confirm_event("write_dev"))
    model.begin_decision("confirm")
    model.show_error("refused")
    assert model.card_state == "" and model.state == "error"
    assert model.items[-1].kind == "error"


def test_closing_the_permission_card_leaves_the_alternatives_in_the_chat() -> None:
    model, _, _ = make()
    model.show_permission_denied(
        PermissionDenial(
            "deploy_dashboard", "admin", ({"action": "search", "prompt": "Find dashboards"},)
        )
    )
    model.close_permission_card()
    assert model.permission_denied is None
    assert model.items[-1].role == "assistant"
    assert model.items[-1].text == (
        "'deploy_dashboard' requires the admin role.\nYou can try instead:\n- Find dashboards"
    )


async def test_a_model_without_a_controller_says_so() -> None:
    model = AgentChatModel()
    with pytest.raises(RuntimeError, match="no page controller"):
        await model.send("hello")


def test_a_stream_that_ends_without_a_verdict_leaves_the_steps_at_the_answer() -> None:
    """No ``done`` came (the stream ended early): the page is Ready, so the strip no longer
    says "Running tools"."""
    model, _, _ = make()
    assert model.begin_turn("find sales") == []
    model.set_step("tools")
    model.end_stream()
    assert model.state == "idle" and model.process_step == "answer"
