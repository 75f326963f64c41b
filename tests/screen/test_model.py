"""AgentChatModel without any UI: context, env sync, countdown, confirm/deny, retry."""

from __future__ import annotations

import pytest

from app.screen.model import AgentChatModel
from tests.ui.fakes import ENVS, FakeClock, ScriptedBackend, confirm_event, done


def make(backend: ScriptedBackend | None = None, **kw) -> tuple[AgentChatModel, FakeClock]:
    clock = FakeClock()
    model = AgentChatModel(
        backend or ScriptedBackend(),
        user_id="u1",
        user_jwt="jwt",
        role="admin",
        environments=ENVS,
        clock=clock,
        reconnect_delays_s=(0.0,),
        **kw,
    )
    return model, clock


FULL = {"objectType": "dashboard", "objectId": "42", "objectName": "Sales", "envId": "prod"}


@pytest.mark.parametrize(
    ("params", "expected_type", "pill"),
    [
        # full params: a context with contextVersion 1 and a descriptive pill
        (FULL, "dashboard", "Dashboard · Sales (#42) · prod"),
        # no params: no context at all
        ({}, None, "No context selected"),
        # malformed objectType is treated as null (the pill says no context)
        ({**FULL, "objectType": "dashbored"}, None, "No context selected"),
    ],
)
def test_set_ui_context_from_params_edges(params, expected_type, pill) -> None:
    model, _ = make()
    model.set_ui_context_from_params(params)
    assert (model.ui_context or {}).get("objectType") == expected_type
    if params:
        assert model.ui_context["contextVersion"] == 1
    else:
        assert model.ui_context is None
    assert model.context_pill_label == pill


def test_no_context_pill_is_russian_in_russian() -> None:
    model, _ = make(lang="ru")
    model.set_ui_context_from_params({})
    assert model.context_pill_label == "Контекст не выбран"


@pytest.mark.parametrize(
    ("env", "is_prod"),
    [
        ("prod", True),  # configured tier prod
        ("dev", False),  # configured tier dev
        ("staging", False),  # configured tier staging
        ("mystery", True),  # unknown tier counts as prod (fail safe)
        (None, False),  # no env selected: nothing to warn about
    ],
)
def test_update_active_env_drives_prod_flag_and_syncs_context(env, is_prod) -> None:
    model, _ = make()
    model.set_ui_context_from_params(FULL)
    model.update_active_env(env)
    assert model.is_prod_context is is_prod
    assert model.ui_context["envId"] == env
    assert model.active_env_id == env


def test_dangerous_countdown_gates_confirm_until_zero() -> None:
    model, clock = make()
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


async def test_confirm_is_refused_during_countdown_and_runs_after() -> None:
    backend = ScriptedBackend(on_confirm=[{"type": "message", "text": "Deleted."}, done()])
    model, clock = make(backend)
    model.show_confirmation(confirm_event("dangerous", dangerous=True, countdown_s=10))
    assert await model.confirm() is False
    assert backend.decisions == []
    clock.advance(10)
    model.tick()
    assert await model.confirm() is True
    assert backend.decisions[0]["decision"] == "confirm"
    assert backend.decisions[0]["confirmation_id"] == "conf-1"
    assert model.card_state == "" and model.state == "idle"
    assert model.items[-1].text == "Deleted."


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "Operation cancelled"),  # the agent's cancellation message
        ("ru", "Операция отменена"),  # the same in Russian
    ],
)
async def test_deny_shows_operation_cancelled(lang, text) -> None:
    backend = ScriptedBackend(on_deny=[done()])
    model, _ = make(backend, lang=lang)
    model.show_confirmation(confirm_event("write_prod", env="prod"))
    assert await model.deny() is True
    assert backend.decisions[0]["decision"] == "deny"
    assert model.items[-1].text == text
    assert model.pending_confirmation is None


async def test_send_passes_context_env_and_history() -> None:
    backend = ScriptedBackend([{"type": "token", "text": "Hi"}, done()])
    model, _ = make(backend)
    model.set_ui_context_from_params(FULL)
    await model.send("first")
    await model.send("second")
    call = backend.sent[1]
    assert call["env_id"] == "prod" and '"objectId": "42"' in call["uicontext_str"]
    assert call["history"] == [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "Hi"},
    ]


async def test_retry_resends_last_message_only_for_read_tools() -> None:
    failing = [
        {"type": "tool_start", "call_id": "a", "tool_name": "search_dashboards"},
        {
            "type": "tool_end",
            "call_id": "a",
            "tool_name": "search_dashboards",
            "status": "failed",
            "error": "502",
            "retryable": True,
        },
        done(),
    ]
    backend = ScriptedBackend(failing)
    model, _ = make(backend)
    await model.send("find sales")
    call = model.tool_call("a")
    assert call.can_retry
    await model.retry(call)
    assert [s["message"] for s in backend.sent] == ["find sales", "find sales"]


async def test_connection_loss_reconnects_by_restoring_history() -> None:
    backend = ScriptedBackend(
        fail_stream=ConnectionError("socket closed"),
        conversation={"messages": [{"role": "user", "text": "old"}], "pending_confirmation": None},
    )
    model, _ = make(backend)
    await model.send("hello")
    assert model.state == "idle"
    assert [m.text for m in model.items] == ["old"]


async def test_connection_loss_that_never_recovers_is_permanent() -> None:
    class Down(ScriptedBackend):
        async def conversation(self, **kwargs):
            raise ConnectionError("still down")

    model, _ = make(Down(fail_stream=ConnectionError("x")))
    await model.send("hello")
    assert model.state == "disconnected_permanent"


async def test_restore_brings_back_history_and_pending_confirmation() -> None:
    pending = confirm_event("dangerous", dangerous=True, countdown_s=10)
    backend = ScriptedBackend(
        conversation={
            "messages": [
                {"role": "user", "text": "delete it"},
                {"role": "assistant", "text": "ok?"},
            ],
            "pending_confirmation": pending,
        }
    )
    model, _ = make(backend)
    await model.restore()
    assert [m.text for m in model.items] == ["delete it", "ok?"]
    assert model.card_state == "dangerous" and model.state == "awaiting_confirmation"
    assert model.dangerous_countdown == 10


def test_closing_the_permission_card_leaves_the_alternatives_in_the_chat() -> None:
    model, _ = make()
    model.show_permission_denied(
        {
            "tool_name": "deploy_dashboard",
            "required_role": "admin",
            "alternatives": [{"action": "search", "prompt": "Find dashboards"}],
        }
    )
    model.close_permission_card()
    assert model.permission_denied is None
    assert model.items[-1].role == "assistant"
    assert model.items[-1].text == (
        "'deploy_dashboard' requires the admin role.\nYou can try instead:\n- Find dashboards"
    )
