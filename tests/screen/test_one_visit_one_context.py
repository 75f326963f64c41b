"""One visit, one context, on the screen model alone: a mount whose link names
a context does not take a conversation held in another context; a conversation shown on
a visit without one brings its own context; a pending card names its object and
environment in its header, and says so when they are not the ones the pill names; a
message typed under a waiting card is answered at the composer, never dropped."""

from __future__ import annotations

import pytest

from app.screen.uicontext import call_object, card_target, carries_context, held_params
from tests.screen.test_model import make
from tests.ui.made_events import confirm_event

SALES_PROD = {
    "objectType": "dashboard",
    "objectId": "1",
    "objectName": "Sales Overview",
    "envId": "prod",
}
DASH_2_DEV = {"objectType": None, "objectId": None, "objectName": None, "envId": "dev"}


@pytest.mark.parametrize(
    ("params", "carries"),
    [
        (SALES_PROD, True),  # the deep link
        ({"envId": "prod"}, True),  # an environment alone is a context too
        ({"objectType": "dashboard", "objectId": "1"}, True),  # an object without an env
        ({}, False),  # a bare /agent
        ({"conv": "abc", "lang": "ru"}, False),  # a conversation link, a language: no context
        ({"objectId": "  "}, False),  # blank values name nothing
    ],
)
def test_which_links_carry_a_context(params: dict, carries: bool) -> None:
    assert carries_context(params) is carries


@pytest.mark.parametrize(
    ("held", "shown"),
    [
        (DASH_2_DEV, False),  # held in dev without an object: another context
        (held_params({}), False),  # held in no context at all (or never asked)
        ({**SALES_PROD, "objectId": "2"}, False),  # another dashboard, same env
        ({**SALES_PROD, "envId": "dev"}, False),  # the same dashboard in another env
        (SALES_PROD, True),  # the same context: a reload of the same link
        ({**SALES_PROD, "objectName": "Renamed"}, True),  # a name is not an identity
    ],
)
def test_a_context_carrying_mount_does_not_take_a_conversation_of_another_context(
    held: dict, shown: bool
) -> None:
    model, _, _ = make()
    model.mount_context(SALES_PROD)
    assert model.link_context
    assert model.may_show_held(held) is shown


def test_a_mount_without_a_context_shows_the_conversation_in_the_context_it_was_held_in() -> None:
    model, _, _ = make()
    model.mount_context({})
    assert not model.link_context
    held = held_params({"uicontext": SALES_PROD, "selected_env": "prod"})
    assert model.may_show_held(held)
    model.take_held_context(held)
    assert model.context_pill_label == "Dashboard · Sales Overview (#1) · prod"
    assert model.is_prod_context


def test_a_conversation_held_in_no_context_clears_the_pill_and_keeps_the_env() -> None:
    model, _, _ = make()
    model.mount_context(SALES_PROD)
    model.take_held_context(held_params({}))
    assert model.context_pill_label == "No context selected"
    assert model.active_env_id == "prod"


def test_held_params_read_the_turn_the_core_checkpointed() -> None:
    turn = {"uicontext": {**SALES_PROD, "envId": None}, "selected_env": "prod"}
    assert held_params(turn) == SALES_PROD
    assert held_params({"selected_env": "dev"}) == DASH_2_DEV


@pytest.mark.parametrize(
    ("args", "named"),
    [
        ({"dashboard_id": 2, "env_id": "dev"}, ("dashboard", "2")),
        ({"dashboard_ids": [4]}, ("dashboard", "4")),  # one of a list
        ({"dashboard_ids": [4, 5]}, None),  # several: no single object
        ({"dataset_id": "7"}, ("dataset", "7")),
        ({"sql": "select 1"}, None),
    ],
)
def test_the_object_a_call_names(args: dict, named: tuple | None) -> None:
    assert call_object(args) == named


def test_a_pending_card_names_its_environment_and_object_in_its_header() -> None:
    model, _, _ = make()
    model.mount_context({})
    model.show_confirmation(confirm_event("dangerous", env="dev", dangerous=True, countdown_s=10))
    assert model.confirm_target == "Dashboard · #42 · dev"
    assert model.confirm_env_badge == "dev"
    assert model.confirm_off_context == ""  # the pill names no object


def test_the_card_borrows_the_pills_name_for_the_same_object() -> None:
    model, _, _ = make()
    model.mount_context({**SALES_PROD, "objectId": "42"})
    model.show_confirmation(confirm_event("dangerous", env="prod", dangerous=True))
    assert model.confirm_target == "Dashboard · Sales Overview (#42) · prod"
    assert model.confirm_off_context == ""


@pytest.mark.parametrize(
    ("env", "lang", "warning"),
    [
        ("dev", "en", "This action is not about the object or environment of this page."),
        ("dev", "ru", "Это действие касается не того объекта или окружения, что у этой страницы."),
    ],
)
def test_a_card_about_another_object_or_env_than_the_pill_says_so(
    env: str, lang: str, warning: str
) -> None:
    model, _, _ = make(lang=lang)
    model.mount_context(SALES_PROD)  # the pill: dashboard 1 in prod
    model.show_confirmation(confirm_event("dangerous", env=env, dangerous=True))  # 42 in dev
    assert model.confirm_off_context == warning
    target = card_target({"dashboard_id": "42"}, env, model.ui_context, lang)
    assert model.confirm_target == target and "#42" in target and env in target


def test_the_cards_header_follows_the_language() -> None:
    model, _, _ = make()
    model.show_confirmation(confirm_event("write_dev", env="dev"))
    model.set_language("ru")
    assert model.confirm_target == "Дашборд · #42 · dev"


async def test_a_message_typed_under_a_waiting_card_is_answered_at_the_composer() -> None:
    model, _, intents = make(lang="ru")
    model.show_confirmation(confirm_event("dangerous", env="prod", dangerous=True))
    assert model.state == "awaiting_confirmation"
    before = model.focus_request
    assert model.accepts_message("удали этот дашборд") is False
    assert model.composer_hint == "Сначала подтвердите или отмените действие выше."
    assert model.focus_request == ("card", before[1] + 1)  # the card to answer
    await model.send("удали этот дашборд")
    assert intents.sent == []  # not sent, and the page says why
    assert await model.cancel_card() is True
    assert model.composer_hint == ""  # answered: the hint goes


def test_an_empty_box_under_a_waiting_card_says_nothing() -> None:
    model, _, _ = make()
    model.show_confirmation(confirm_event("write_dev"))
    assert model.accepts_message("   ") is False
    assert model.composer_hint == ""
