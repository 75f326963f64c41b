"""The controller's ways forward: continue without the page's context (the context and
the pill cleared, the spelled-out request sent) and Check status by the task's id."""

from __future__ import annotations

import pytest

from tests.events import write_timed_out
from tests.pages.test_agent_controller import setup
from tests.ui.fakes import done, message

DASHBOARD = {"objectType": "dashboard", "objectId": "42", "objectName": "Sales", "envId": "prod"}
DATASET = {"objectType": "dataset", "objectId": "5", "envId": "dev"}


async def test_continue_without_context_clears_the_context_and_sends_the_request() -> None:
    core, model, *_ = setup(params=DASHBOARD)
    core.replies = [message("ok"), done()]
    assert model.context_pill_label == "Dashboard · Sales (#42) · prod"
    await model.continue_without_context("delete dashboard 42 in prod")
    sent = core.sent[-1]
    assert sent["message"] == "delete dashboard 42 in prod"
    assert sent["uicontext"] is None and sent["env_id"] == "prod"
    assert model.ui_context is None and model.context_pill_label == "No context selected"
    assert model.is_prod_context  # the environment stays selected: still prod


async def test_continue_without_context_waits_for_a_running_turn() -> None:
    core, model, *_ = setup(params=DASHBOARD)
    model.begin_turn("something")  # a turn is running
    await model.continue_without_context("delete dashboard 42 in prod")
    assert core.sent == [] and model.ui_context is not None


@pytest.mark.parametrize(
    ("params", "lang", "task_id", "asked", "keeps_context"),
    [
        # a dataset page keeps get_task_status: asked with the task id, context kept
        (DATASET, "en", "93ff0a1b", "check the status of task 93ff0a1b", True),
        # no context at all
        ({}, "ru", "93ff0a1b", "проверь статус задачи 93ff0a1b", True),
        # a dashboard page filters get_task_status out: the way without the context
        (DASHBOARD, "en", "93ff0a1b", "check the status of task 93ff0a1b", False),
        # a write without a task id: the recent tasks
        (
            {},
            "en",
            None,
            "Check the status of the last deploy_dashboard operation (get_task_status)",
            True,
        ),
    ],
)
async def test_check_status_asks_for_the_task_by_id_from_anywhere(
    params, lang, task_id, asked, keeps_context
) -> None:
    core, model, *_ = setup(params=params, lang=lang)
    core.replies = write_timed_out(task_id)
    await model.send("deploy it")
    call = model.tool_call("w")
    assert call is not None and call.can_check_status
    core.replies = [message("done"), done()]
    await model.check_status(call)
    sent = core.sent[-1]
    assert sent["message"] == asked
    assert (sent["uicontext"] is not None) == (keeps_context and bool(params))
