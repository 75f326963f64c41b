"""Context is a help, never a dead end, whatever model answers (NiceGUI user simulation,
English and Russian). The ways on are the core's typed offers, never read from text:

* a call the page's context leaves out is refused (said in the page's language, from the
  typed refusal, no English) and the answer offers "Continue without this page's context":
  one click clears the context and the pill and makes the call directly through the core,
  which reaches the confirmation card (the real core, a scripted model);
* choice offers are buttons that send their request;
* a write's timeout offers "Check status": a direct get_task_status call.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from nicegui import ui
from nicegui.testing import User

from app.events import Offer
from tests.agent.scripted import call, recording_tools
from tests.events import write_timed_out
from tests.fixtures.pages import page_model
from tests.ui.made_events import done, message

DEEP = "/agent?objectType=dashboard&objectId=42&objectName=Sales&envId=prod"
CASES = {
    "en": {
        "ask": "delete this dashboard",
        "answer": "I can't delete a dashboard from its own page.",
        "notice": "“delete_dashboard” is not available on a dashboard page: the page's context "
        "leaves it out.",
        # the page's context names the dashboard: the way on says it as the person knows it
        "request": "Delete dashboard “Sales” (#42) in prod",
        "button": "Continue without this page's context",
        "pill": "No context selected",
        "card": "Dangerous action",
    },
    "ru": {
        "ask": "удали этот дашборд",
        "answer": "Со страницы дашборда удалить его нельзя.",
        "notice": "«delete_dashboard» недоступен на странице дашборда: контекст страницы его "
        "исключает.",
        "request": "Удалить дашборд «Sales» (#42) в prod",
        "button": "Продолжить без контекста страницы",
        "pill": "Контекст не выбран",
        "card": "Опасное действие",
    },
}


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_a_context_refusal_offers_one_click_to_the_confirmation(
    user: User, harness: Any, sign_in: Any, lang: str
) -> None:
    case = CASES[lang]
    ran: list[Any] = []
    # the model proposes the delete on the dashboard page, reads the refusal, answers
    harness.use(
        call("delete_dashboard", dashboard_id="42"), case["answer"], tools=recording_tools(ran)
    )
    await sign_in("admin", target=f"{DEEP}&lang={lang}")
    user.find(marker="chat-input").type(case["ask"]).trigger("keydown.enter")
    await user.should_see(case["notice"], retries=60)
    await user.should_see(case["answer"], retries=30)
    await user.should_see(kind=ui.button, content=case["button"], retries=30)
    await user.should_see(case["request"], marker="continue-request")
    model = page_model(user)
    notice = next(m for m in model.items if getattr(m, "kind", "") == "notice")
    assert notice.detail == "" and notice.offers == []  # the answer carries the way, once
    asked_model = len(harness.recorder.seen)

    user.find(kind=ui.button, content=case["button"]).click()
    await user.should_see(case["card"], retries=60)
    await user.should_see(case["pill"])
    assert model.ui_context is None
    meta = model.pending_confirmation.metadata
    assert (meta.tool_name, meta.tool_args["dashboard_id"], meta.env_id) == (
        "delete_dashboard",
        "42",
        "prod",
    )
    assert ran == []  # nothing runs before the confirmation
    assert len(harness.recorder.seen) == asked_model  # a direct call: no model asked
    direct = [r for r in harness.audit_rows(kind="tool_filtered") if "direct call" in r["reason"]]
    assert [(r["tool"], r["channel"], r["conv_id"]) for r in direct] == [
        ("delete_dashboard", "page", model.conv_id)
    ]


async def test_a_russian_page_says_the_context_refusal_with_no_english(
    user: User, harness: Any, sign_in: Any
) -> None:
    case = CASES["ru"]
    harness.use(call("delete_dashboard", dashboard_id="42"), case["answer"])
    await sign_in("admin", target=f"{DEEP}&lang=ru")
    user.find(marker="chat-input").type(case["ask"]).trigger("keydown.enter")
    await user.should_see(case["notice"], retries=60)
    await user.should_see(kind=ui.button, content=case["button"], retries=30)
    for english in ("not available", "not offered", "context", "page"):
        await user.should_not_see(english)
    # every sentence the agent said is Russian; only names (the tool, the env, the
    # dashboard's title) are Latin
    said = " ".join(getattr(i, "text", "") for i in page_model(user).items if i.role != "user")
    said += " " + " ".join(o.request for i in page_model(user).items for o in i.offers)
    assert set(re.findall(r"[A-Za-z_]{3,}", said)) <= {"delete_dashboard", "prod", "Sales"}


CHOICES = [
    Offer(
        kind="choice", label="“Sales demo” (#7)", request="check the health of dashboard 7 in dev"
    ),
    Offer(
        kind="choice", label="“Sales old” (#9)", request="check the health of dashboard 9 in dev"
    ),
]


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_choices_are_buttons_that_send_their_request(user: User, core, sign_in, lang):
    question = {"en": "Which one do you mean?", "ru": "Какой из них?"}[lang]
    core.replies = [message(question, offers=CHOICES), done()]
    await sign_in("admin", target=f"/agent?lang={lang}")
    user.find(marker="chat-input").type("check Sales").trigger("keydown.enter")
    await user.should_see(question, retries=30)
    found = user.find(marker="choice-button").elements
    buttons = sorted((b for b in found if isinstance(b, ui.button)), key=lambda b: b.id)
    assert [b.text for b in buttons] == ["“Sales demo” (#7)", "“Sales old” (#9)"]
    core.replies = [message("ok"), done()]
    user.find(kind=ui.button, content="“Sales old” (#9)").click()
    await user.should_see("ok", retries=30)
    assert core.sent[-1]["message"] == "check the health of dashboard 9 in dev"
    tips = {t.props.get("target"): t.text for t in user.find(kind=ui.tooltip).elements}
    assert [tips[f"#{b.html_id}"] for b in buttons] == [c.request for c in CHOICES]
    assert core.calls == []  # a choice is a request, not a call


@pytest.mark.parametrize(
    ("lang", "button", "asked"),
    [
        ("en", "Check status", "check the status of task 93ff0a1b"),
        ("ru", "Проверить статус", "проверь статус задачи 93ff0a1b"),
    ],
)
async def test_check_status_on_a_dashboard_page_is_a_direct_get_task_status_call(
    user: User, core, sign_in, lang, button, asked
) -> None:
    # the core says get_task_status is left out on a dashboard page: leave the context
    core.replies = write_timed_out("93ff0a1b", clear_context=True, lang=lang)
    await sign_in("admin", target=f"{DEEP}&lang={lang}")
    user.find(marker="chat-input").type("deploy").trigger("keydown.enter")
    await user.should_see(kind=ui.button, content=button, marker="check-status-button", retries=30)
    core.on_call = [message("running"), done()]
    user.find(marker="check-status-button").click()
    await user.should_see(CASES[lang]["pill"], retries=30)
    await user.should_see("running", retries=30)
    (made,) = core.calls
    assert (made["tool_name"], made["arguments"]) == ("get_task_status", {"task_id": "93ff0a1b"})
    assert made["uicontext"] is None and made["conv_id"] == page_model(user).conv_id
    assert [s["message"] for s in core.sent] == ["deploy"]  # no sentence for a planner
    await user.should_see(asked)  # what the person asked, as their message


async def test_an_answer_without_a_call_offers_to_ask_again_without_the_context(
    user: User, core, sign_in
) -> None:
    """A model that never called the tool the page left out: the core offers the same
    message again without the page's context (no call): it is sent as a turn."""
    again = Offer(
        kind="without_context",
        label="Ask again without this page's context",
        request="delete this dashboard",
        clear_context=True,
    )
    core.replies = [message("I can't do that here.", offers=[again]), done()]
    await sign_in("admin", target=DEEP)
    user.find(marker="chat-input").type("delete this dashboard").trigger("keydown.enter")
    button = "Ask again without this page's context"
    await user.should_see(kind=ui.button, content=button, retries=30)
    core.replies = [message("ok"), done()]
    user.find(kind=ui.button, content=button).click()
    await user.should_see("No context selected", retries=30)
    await user.should_see("ok", retries=30)
    assert core.calls == []
    assert [(s["message"], s["uicontext"] is None) for s in core.sent] == [
        ("delete this dashboard", False),
        ("delete this dashboard", True),
    ]
