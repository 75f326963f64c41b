"""The ways on arrive typed on the events and become the buttons' data, whatever model
answered: a message's offers under that answer, a write timeout's "Check status" on its
card, an error's offers under it when the run ends without a message; a model's problem
is the answer (muted), never the generic error. The model hands an offer, untouched, to
the controller."""

from __future__ import annotations

from typing import Any

import pytest

from app import events as ev
from app.facts import Refusal
from app.screen.chat_model import AgentChatModel
from app.screen.stream import StreamProcessor
from tests.events import check_status_offer, timed_out
from tests.ui.fakes import FakeClock, FakeConversation
from tests.ui.made_events import done

WAY = ev.Offer(
    kind="without_context",
    label="Continue without this page's context",
    request="Delete dashboard 42 in prod",
    call=ev.OfferedCall(tool_name="delete_dashboard", args={"dashboard_id": 42, "env_id": "prod"}),
    clear_context=True,
)
CHOICES = [
    ev.Offer(kind="choice", label="“Sales demo” (#7)", request="check dashboard 7 in dev"),
    ev.Offer(kind="choice", label="“Sales old” (#9)", request="check dashboard 9 in dev"),
]
NOT_HERE = ev.ErrorEvent(
    code="not_available",
    message="'delete_dashboard' is not offered on a dashboard page",
    tool_name="delete_dashboard",
    refusal=Refusal(
        code="not_available",
        tool_name="delete_dashboard",
        message="'delete_dashboard' is not offered on a dashboard page",
        page="dashboard",
        env_id="prod",
    ),
    offers=[WAY],
)


def setup(lang: str = "en") -> tuple[AgentChatModel, StreamProcessor]:
    model = AgentChatModel(lang=lang, clock=FakeClock())
    return model, StreamProcessor(model)


def test_a_messages_offers_go_under_that_answer() -> None:
    m, p = setup()
    p.apply(ev.MessageEvent(text="Which one do you mean?", offers=CHOICES))
    (answer,) = m.items
    assert answer.offers == CHOICES and answer.text == "Which one do you mean?"


def test_a_streamed_answer_gets_the_offers_of_its_message() -> None:
    m, p = setup()
    p.apply(ev.TokenEvent(text="Which one"))
    p.apply(ev.MessageEvent(text="Which one do you mean?", offers=CHOICES))
    (answer,) = m.items
    assert answer.offers == CHOICES


def test_a_refusal_with_a_message_after_it_shows_the_way_once_under_the_answer() -> None:
    m, p = setup()
    for event in (NOT_HERE, ev.MessageEvent(text="I can't here.", offers=[WAY]), done()):
        p.apply(event)
    notice, answer = m.items
    assert notice.kind == "notice" and notice.offers == []
    assert answer.offers == [WAY]


def test_an_error_that_ends_the_run_without_a_message_keeps_its_offers() -> None:
    """A door's direct call has no model to answer: the refusal's way on stays with it."""
    m, p = setup()
    p.apply(NOT_HERE)
    assert m.items[0].offers == []  # held until the run ends: a message may carry it
    p.apply(done())
    (notice,) = m.items
    assert notice.offers == [WAY]


async def test_a_stream_that_ends_without_done_still_releases_the_errors_offers() -> None:
    m, p = setup()

    async def events() -> Any:
        yield NOT_HERE

    await p.run(events())
    assert m.items[0].offers == [WAY]


def test_an_offer_the_message_leaves_out_stays_with_its_error() -> None:
    m, p = setup()
    for event in (NOT_HERE, ev.MessageEvent(text="Done something else."), done()):
        p.apply(event)
    notice, answer = m.items
    assert notice.offers == [WAY] and answer.offers == []


def test_a_write_timeout_gets_check_status_from_its_offer() -> None:
    m, p = setup()
    p.apply(ev.ToolStartEvent(call_id="w", tool_name="deploy_dashboard", is_write_tool=True))
    offer = check_status_offer("93ff0a1b", clear_context=True)
    p.apply(timed_out("w", "deploy_dashboard", offers=[offer]))
    call = m.tool_call("w")
    assert call is not None and call.can_check_status and not call.can_retry
    assert call.check_status_offer == offer
    assert offer.call is not None and offer.call.args == {"task_id": "93ff0a1b"}


@pytest.mark.parametrize(
    ("lang", "problem", "text"),
    [
        ("en", "step_cap", "I stopped after 8 steps without an answer."),
        ("ru", "unknown_tool", "Я остановился: модель дважды запросила несуществующий инструмент."),
        ("en", "unreachable", "The model could not be reached, so nothing was done."),
    ],
)
def test_a_models_problem_is_the_answer_muted_never_the_generic_error(
    lang: str, problem: str, text: str
) -> None:
    m, p = setup(lang)
    p.apply(ev.TurnStartEvent(model="local model"))
    p.apply(ev.MessageEvent(text=text, problem=problem))
    p.apply(done())
    (answer,) = m.items
    assert (answer.role, answer.kind, answer.text) == ("assistant", "problem", text)
    assert m.state == "idle"
    assert m.history() == [{"role": "assistant", "content": text}]  # an answer, not an error


def test_text_streamed_before_a_problem_stays_and_the_problem_is_its_own_bubble() -> None:
    m, p = setup()
    p.apply(ev.TokenEvent(text="Let me look."))
    p.apply(ev.MessageEvent(text="I stopped after 8 steps.", problem="step_cap"))
    first, second = m.items
    assert (first.kind, first.text) == ("text", "Let me look.")
    assert (second.kind, second.text) == ("problem", "I stopped after 8 steps.")


def test_a_restored_row_keeps_typed_offers_and_never_reads_them_from_text() -> None:
    m, p = setup()
    old_markdown = "No.\n\nContinue without this page's context: `delete dashboard 42 in prod`"
    rows = [
        {"role": "assistant", "text": old_markdown},
        {"role": "assistant", "text": "Which?", "offers": [c.model_dump() for c in CHOICES]},
    ]
    p.restore(FakeConversation(messages=rows))
    assert m.items[0].offers == []
    assert m.items[1].offers == CHOICES


class Recorder:
    def __init__(self) -> None:
        self.taken: list[ev.Offer] = []

    async def take_offer(self, offer: ev.Offer) -> None:
        self.taken.append(offer)


async def test_the_model_hands_an_offer_to_the_controller_unless_a_turn_runs() -> None:
    m, _ = setup()
    intents = Recorder()
    m.connect(intents)  # type: ignore[arg-type]
    await m.take_offer(WAY)
    assert intents.taken == [WAY]
    m.begin_turn("something")  # a turn is running
    await m.take_offer(CHOICES[0])
    assert intents.taken == [WAY]


async def test_check_status_takes_the_cards_offer() -> None:
    m, p = setup()
    intents = Recorder()
    m.connect(intents)  # type: ignore[arg-type]
    p.apply(ev.ToolStartEvent(call_id="w", tool_name="deploy_dashboard", is_write_tool=True))
    offer = check_status_offer("93ff0a1b")
    p.apply(timed_out("w", "deploy_dashboard", offers=[offer]))
    p.apply(done())
    call = m.tool_call("w")
    assert call is not None
    await m.check_status(call)
    assert intents.taken == [offer]
