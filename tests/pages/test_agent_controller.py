"""AgentPageController with a fake core and a real screen model (no UI): what it hands the
core, how it feeds the screen, refusals, reconnects and restores (where a visit opens:
``test_agent_controller_visits``)."""

from __future__ import annotations

import pytest

from app.agent.core import Caller
from app.agent.core.requests import RateLimited
from app.errors import ConfirmationError
from app.events import ToolEndEvent, ToolStartEvent
from tests.pages.controller_setup import ANN, setup
from tests.ui import fakes
from tests.ui.made_events import confirm_event, done, message, token


async def test_a_turn_is_prepared_with_context_env_history_and_the_page_channel() -> None:
    core, model, *_ = setup(params={"objectType": "dashboard", "objectId": "42"})
    core.replies = [token("Hi"), done()]
    await model.send("first")
    await model.send("second")
    first, second = core.sent
    assert first["caller"] == Caller(token="jwt-ann", principal=ANN, channel="page")
    assert first["conv_id"] == model.conv_id
    assert first["env_id"] == "dev"  # no env in the link: the first non-prod one
    assert second["uicontext"]["objectId"] == "42"  # a dict, not JSON text
    assert second["history"] == [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "Hi"},
    ]
    assert model.state == "idle"


async def test_confirm_after_the_countdown_resumes_and_clears_the_card() -> None:
    core, model, _, clock, _ = setup()
    core.replies = [
        confirm_event("dangerous", dangerous=True, countdown_s=10),
        done(),
    ]
    core.on_confirm = [message("Deleted."), done()]
    await model.send("delete dashboard 42")
    assert model.state == "awaiting_confirmation"
    assert await model.confirm() is False and core.decisions == []
    clock.advance(10)
    model.tick()
    assert await model.confirm() is True
    decision = core.decisions[0]
    assert (decision["decision"], decision["confirmation_id"]) == ("confirm", "conf-1")
    assert decision["caller"] == Caller(token="jwt-ann", principal=ANN, channel="page")
    assert model.card_state == "" and model.state == "idle"
    assert model.items[-1].text == "Deleted."


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "Operation cancelled"),  # the agent said nothing: the page says it
        ("ru", "Операция отменена"),  # in the page's language
    ],
)
async def test_deny_without_an_answer_says_operation_cancelled(lang, text) -> None:
    core, model, *_ = setup(lang=lang)
    core.replies = [
        confirm_event("write_prod", env="prod"),
        done("awaiting_confirmation"),
    ]
    core.on_deny = [done()]
    await model.send("deploy")
    assert await model.deny("not now") is True
    assert core.decisions[0]["reason"] == "not now"
    assert model.items[-1].text == text
    assert model.pending_confirmation is None and model.state == "idle"


def _cancelled() -> ToolEndEvent:
    return ToolEndEvent(
        call_id="call-9",
        tool_name="deploy_dashboard",
        status="cancelled",
        result="cancelled by the user: not now",
    )


@pytest.mark.parametrize(
    ("lang", "after_deny", "shown"),
    [
        # the offline planner's own sentence: the product's line first, then the model's
        (
            "en",
            [_cancelled(), message("Cancelled — not deleting dashboard 2 in dev."),
             done()],
            ["Operation cancelled", "Cancelled — not deleting dashboard 2 in dev."],
        ),
        # a model that streams its words: the same order
        (
            "ru",
            [_cancelled(), token("Хорошо, "), token("не трогаю."), done()],
            ["Операция отменена", "Хорошо, не трогаю."],
        ),
        # a model that says it too: the product's line is said all the same, once
        (
            "en",
            [_cancelled(), message("Operation cancelled."), done()],
            ["Operation cancelled", "Operation cancelled."],
        ),
        # no card event reached the page (a stream without its tool_end): said at the end
        ("en", [message("Fine."), done()], ["Fine.", "Operation cancelled"]),
    ],
)  # fmt: skip
async def test_every_deny_ends_with_the_products_own_line(lang, after_deny, shown) -> None:
    core, model, *_ = setup(lang=lang)
    core.replies = [
        confirm_event("write_prod", env="prod"),
        done("awaiting_confirmation"),
    ]
    core.on_deny = after_deny
    await model.send("deploy")
    before = len(model.items)
    assert await model.deny("not now") is True
    said = [i.text for i in model.items[before:] if hasattr(i, "role")]
    assert said == shown
    assert model.pending_confirmation is None and model.state == "idle"


async def test_a_stop_cancelling_a_call_is_not_a_cancel() -> None:
    core, model, *_ = setup()
    core.replies = [
        ToolStartEvent(call_id="call-9", tool_name="deploy_dashboard", is_write_tool=True),
        _cancelled(),
        message("Stopped."),
        done(),
    ]
    await model.send("deploy")
    assert "Operation cancelled" not in [getattr(i, "text", "") for i in model.items]


@pytest.mark.parametrize(
    ("refusal", "lang", "text"),
    [
        # the core's RequestRefused, said in the page's language
        (fakes.Refused(422, "history_too_long", "20 items max"), "ru", "Диалог слишком длинный"),
        (fakes.Refused(401, "unauthorized", "expired"), "en", "Your session has expired"),
        # a user over their pace: the page's sentence, with the wait
        (
            RateLimited("rate_limited", "Too many turns", 7),
            "en",
            "You are sending requests faster than allowed. Try again in 7 seconds.",
        ),
        (RateLimited("too_many_running", "3 running", 5), "ru", "Несколько ваших запросов"),
        # a code the page has no sentence for: the reason is shown
        (
            fakes.Refused(418, "teapot", "slow down"),
            "en",
            "The request was refused: slow down",
        ),
    ],
)
async def test_a_refused_turn_is_an_error_message_never_a_traceback(refusal, lang, text) -> None:
    core, model, *_ = setup(lang=lang)
    core.refuse = refusal
    await model.send("hello")
    assert model.state == "error"
    assert model.items[-1].kind == "error" and model.items[-1].text.startswith(text)
    assert core.sent == []  # nothing ran
    assert model.draft_request[0] == "hello"  # the text goes back into the composer


async def test_a_run_refused_at_its_start_is_answered_like_a_refused_check() -> None:
    """The page takes a door's two steps as every door does (``admitted``): a turn whose
    run is refused before its first event (busy on another replica) is a refusal before it
    started: the page's sentence, and the text back in the composer."""
    busy = fakes.Refused(409, "conversation_busy", "a turn runs elsewhere")
    core = fakes.FakeCore(environments=fakes.ENVS, fail_stream=busy)
    core, model, *_ = setup(core)
    await model.send("hello")
    assert model.state == "error"
    assert model.items[-1].text.startswith("This conversation is still running a turn")
    assert model.draft_request[0] == "hello"


async def test_a_confirm_refused_while_the_users_requests_are_full_keeps_the_card() -> None:
    core, model, *_ = setup(lang="ru")
    core.replies = [
        confirm_event("write_prod", env="prod"),
        done("awaiting_confirmation"),
    ]
    await model.send("deploy")
    card = model.pending_confirmation
    core.refuse = RateLimited("too_many_running", "3 running", 5)
    await model.confirm()
    assert model.items[-1].kind == "error"
    assert model.items[-1].text.startswith("Несколько ваших запросов ещё выполняются")
    assert model.pending_confirmation is card and model.card_state == "write_prod"
    assert model.state == "awaiting_confirmation" and model.confirm_enabled
    assert await model.confirm() is True  # answered again once a slot is free
    assert [d["decision"] for d in core.decisions] == ["confirm"]


async def test_a_refused_confirmation_is_explained_in_the_pages_language() -> None:
    core, model, *_ = setup(lang="ru")
    core.replies = [
        confirm_event("write_dev"),
        done("awaiting_confirmation"),
    ]
    await model.send("deploy")
    core.refuse = ConfirmationError("confirmation expired", reason="expired")
    await model.confirm()
    assert model.items[-1].text == "Срок подтверждения истёк. Повторите запрос."
    assert model.card_state == "" and model.state == "error"


async def test_a_dropped_stream_reconnects_by_reloading_the_conversation() -> None:
    core = fakes.FakeCore(
        environments=fakes.ENVS,
        fail_stream=ConnectionError("socket closed"),
        conversation=fakes.FakeConversation(messages=[{"role": "user", "text": "old"}]),
    )
    core, model, _, _, sleeps = setup(core)
    await model.send("hello")
    assert sleeps.delays == [1.0]
    assert model.state == "idle"
    assert [m.text for m in model.items] == ["old"]


async def test_a_connection_that_never_comes_back_is_permanent_after_the_backoff() -> None:
    core = fakes.FakeCore(environments=fakes.ENVS, fail_stream=ConnectionError("x"))

    async def down(principal, conv_id):
        raise ConnectionError("still down")

    core.conversation = down  # type: ignore[method-assign]
    core, model, _, _, sleeps = setup(core)
    await model.send("hello")
    assert sleeps.delays == [1.0, 2.0, 4.0]
    assert model.state == "disconnected_permanent"


async def test_restore_brings_back_history_tool_cards_and_the_pending_card() -> None:
    core = fakes.FakeCore(
        environments=fakes.ENVS,
        conversation=fakes.FakeConversation(
            messages=[{"role": "user", "text": "delete it"}, {"role": "assistant", "text": "ok?"}],
            tool_calls=[{"call_id": "a", "tool_name": "search_dashboards", "tool_args": {}}],
            pending=confirm_event("dangerous", dangerous=True, countdown_s=10),
        ),
    )
    _, model, controller, *_ = setup(core)
    await controller.restore()
    assert [getattr(i, "text", getattr(i, "tool_name", "")) for i in model.items] == [
        "delete it",
        "ok?",
        "search_dashboards",
    ]
    assert model.card_state == "dangerous" and model.state == "awaiting_confirmation"


async def test_a_retried_read_sends_the_last_message_again() -> None:
    core, model, *_ = setup()
    core.replies = [
        ToolStartEvent(call_id="a", tool_name="search_dashboards"),
        ToolEndEvent(call_id="a", tool_name="search_dashboards", status="failed", retryable=True),
        done(),
    ]
    await model.send("find sales")
    await model.retry(model.tool_call("a"))
    assert [s["message"] for s in core.sent] == ["find sales", "find sales"]


# ---- one tier answer for the banner and the card ------------------------------------------
