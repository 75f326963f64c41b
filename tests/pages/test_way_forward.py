"""The controller takes the core's typed offers: ``clear_context`` leaves the page's
context (the pill too) first; an offer with a ``call`` is made directly through the core
(``prepare_call`` + ``run_call``) in this conversation on the page's channel, its events
fed to the screen like a turn's; an offer without a call sends its request."""

from __future__ import annotations

import pytest

from app.agent.core import Caller
from app.events import Offer, OfferedCall
from tests.events import write_timed_out
from tests.pages.test_agent_controller import ANN, setup
from tests.ui.fakes import Refused
from tests.ui.made_events import confirm_event, done, message

DASHBOARD = {"objectType": "dashboard", "objectId": "42", "objectName": "Sales", "envId": "prod"}
DATASET = {"objectType": "dataset", "objectId": "5", "envId": "dev"}
WAY = Offer(
    kind="without_context",
    label="Continue without this page's context",
    request="Delete dashboard 42 in prod",
    call=OfferedCall(tool_name="delete_dashboard", args={"dashboard_id": 42, "env_id": "prod"}),
    clear_context=True,
)
CHOICE = Offer(kind="choice", label="“Sales old” (#9)", request="check dashboard 9 in dev")


async def test_continue_without_context_clears_the_context_and_makes_the_call() -> None:
    core, model, *_ = setup(params=DASHBOARD)
    card = confirm_event("dangerous", tool="delete_dashboard", env="prod", dangerous=True)
    core.on_call = [card, done("awaiting_confirmation")]
    assert model.context_pill_label == "Dashboard · Sales (#42) · prod"
    await model.take_offer(WAY)
    (made,) = core.calls
    assert (made["tool_name"], made["arguments"]) == ("delete_dashboard", WAY.call.args)
    assert made["uicontext"] is None and made["conv_id"] == model.conv_id
    assert made["caller"] == Caller(token="jwt-ann", principal=ANN, channel="page")
    assert made["lang"] == "en"
    assert core.sent == []  # no turn, no model: the call itself
    assert model.ui_context is None and model.context_pill_label == "No context selected"
    assert model.is_prod_context  # the environment stays selected: still prod
    assert model.state == "awaiting_confirmation" and model.card_state == "dangerous"
    asked = [i for i in model.items if getattr(i, "role", "") == "user"]
    assert [i.text for i in asked] == ["Delete dashboard 42 in prod"]  # what the person asked


async def test_an_offer_waits_for_a_running_turn() -> None:
    core, model, *_ = setup(params=DASHBOARD)
    model.begin_turn("something")  # a turn is running
    await model.take_offer(WAY)
    assert core.calls == [] and model.ui_context is not None


async def test_a_choice_sends_its_request_in_the_pages_context() -> None:
    core, model, *_ = setup(params=DATASET)
    core.replies = [message("ok"), done()]
    await model.take_offer(CHOICE)
    assert core.calls == []
    sent = core.sent[-1]
    assert sent["message"] == "check dashboard 9 in dev" and sent["uicontext"]["objectId"] == "5"


@pytest.mark.parametrize(
    ("params", "lang", "task_id", "clear", "args"),
    [
        # a dataset page keeps get_task_status: the call under the page's context
        (DATASET, "en", "93ff0a1b", False, {"task_id": "93ff0a1b"}),
        # no context at all, a Russian page
        ({}, "ru", "93ff0a1b", False, {"task_id": "93ff0a1b"}),
        # a dashboard page filters get_task_status out: the core says leave the context
        (DASHBOARD, "en", "93ff0a1b", True, {"task_id": "93ff0a1b"}),
        # a write without a task id: the recent tasks
        ({}, "en", None, False, {}),
    ],
)
async def test_check_status_makes_the_direct_get_task_status_call(
    params, lang, task_id, clear, args
) -> None:
    core, model, *_ = setup(params=params, lang=lang)
    core.replies = write_timed_out(task_id, clear_context=clear, lang=lang)
    await model.send("deploy it")
    call = model.tool_call("w")
    assert call is not None and call.can_check_status
    core.on_call = [message("running"), done()]
    await model.check_status(call)
    (made,) = core.calls
    assert (made["tool_name"], made["arguments"], made["lang"]) == ("get_task_status", args, lang)
    kept = made["uicontext"] is not None
    assert kept == (bool(params) and not clear)
    assert model.state == "idle" and model.items[-1].text == "running"


async def test_a_refused_call_is_said_in_the_pages_language() -> None:
    core, model, *_ = setup(params=DASHBOARD, lang="ru")
    core.refuse = Refused(401, "unauthorized", "token expired")
    await model.take_offer(WAY)
    assert model.items[-1].kind == "error"
    assert model.items[-1].text == "Сеанс истёк. Войдите снова."
