"""The screen model's operator controls without any UI: the edit form built
from the tool's args model, its messages, the reason of a denial, Stop, the drawer's
actions, focus requests, and a restore in conversation order."""

from __future__ import annotations

from typing import Any

import pytest

from app.agent.core.edits import args_schema
from app.agent.rules import default_policy
from app.events import ConfirmRequiredEvent
from app.i18n import t
from app.screen.argsform import args_from_fields, fields_from_schema
from app.screen.items import ToolCall
from app.screen.stream import StreamProcessor
from app.vocab import Risk
from tests.events import confirm_card
from tests.screen.test_model import make
from tests.ui.fakes import FakeConversation


def deploy_card(target: str = "staging", *, dangerous: bool = False) -> ConfirmRequiredEvent:
    args = {"dashboard_id": "42", "source_env": None, "target_env": target}
    risk: Risk = "delete" if dangerous else "write"
    return confirm_card(
        "deploy_dashboard", args, env=target, risk=risk, countdown_s=10 if dangerous else 0
    )


def editing(card: ConfirmRequiredEvent | None = None) -> tuple[Any, Any, Any]:
    """A screen model showing ``card`` (a deploy to staging by default) with its edit form
    open: the model, its clock and the intents it sends."""
    model, clock, intents = make()
    model.show_confirmation(card or deploy_card())
    model.begin_edit()
    return model, clock, intents


def field(model: Any, name: str) -> Any:
    return next(f for f in model.edit_fields if f.name == name)


# ---- the form from the args model ---------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "name", "kind"),
    [
        ("deploy_dashboard", "target_env", "env"),  # an environment: a choice of the configured
        ("deploy_dashboard", "dashboard_id", "text"),  # a plain string
        ("superset_execute_sql", "sql", "longtext"),  # SQL gets a multi-line box
        ("superset_execute_sql", "row_limit", "integer"),  # a number field
        ("execute_migration", "dashboard_ids", "list"),  # a list: comma separated
        ("execute_migration", "database_mapping", "json"),  # an object: JSON text
        ("start_maintenance", "duration_minutes", "integer"),  # int | None: still a number
    ],
)
def test_each_argument_gets_a_typed_field(tool: str, name: str, kind: str) -> None:
    fields = fields_from_schema(args_schema(default_policy(), tool), {}, [("dev", "Dev")])
    assert next(f for f in fields if f.name == name).kind == kind


def test_the_russian_form_labels_and_explains_each_field_in_russian() -> None:
    en = fields_from_schema(args_schema(default_policy(), "deploy_dashboard"), {})
    ru = fields_from_schema(args_schema(default_policy(), "deploy_dashboard", "ru"), {})
    assert [(f.label, f.hint) for f in en if f.name == "target_env"] == [
        ("Target Env", "Environment to deploy to (e.g. 'staging', 'prod').")
    ]
    assert [(f.label, f.hint) for f in ru if f.name == "target_env"] == [
        ("Куда", "Окружение, в которое развернуть (например, staging или prod).")
    ]
    assert [(f.name, f.kind, f.required) for f in ru] == [
        (f.name, f.kind, f.required) for f in en
    ]  # only the words change
    model, _, _ = make()
    model.set_language("ru")
    model.show_confirmation(deploy_card("prod"))
    assert model.begin_edit()
    assert field(model, "dashboard_id").label == "Дашборд"
    assert field(model, "dashboard_id").hint.startswith("Id дашборда")


def test_environment_choices_are_the_configured_ones_plus_the_shown_value() -> None:
    model, _, _ = make()
    model.show_confirmation(deploy_card("prod-eu"))
    assert model.begin_edit()
    target = field(model, "target_env")
    assert list(target.choices) == ["dev", "staging", "prod", "test-main", "prod-eu"]
    assert target.value == "prod-eu" and target.required
    assert next(iter(field(model, "source_env").choices)) == ""  # optional: "—" first


def test_lists_and_json_read_back_and_unreadable_json_is_said() -> None:
    fields = fields_from_schema(
        args_schema(default_policy(), "execute_migration"),
        {"dashboard_ids": ["1", "2"], "target_env": "prod", "database_mapping": {"a": "b"}},
    )
    args, bad = args_from_fields(fields)
    assert args["dashboard_ids"] == ["1", "2"] and args["database_mapping"] == {"a": "b"}
    assert "source_env" not in args and bad == {}
    next(f for f in fields if f.name == "database_mapping").value = "{not json"
    assert args_from_fields(fields)[1] == {"database_mapping": "not valid JSON"}


# ---- submitting an edit -------------------------------------------------------------------


async def test_an_edit_is_confirmed_with_the_edited_arguments() -> None:
    model, _, intents = editing()
    field(model, "target_env").value = "prod"
    assert await model.submit_edit() is True
    assert intents.decided == [("confirm", None)]
    assert intents.args == [{"dashboard_id": "42", "target_env": "prod"}]
    assert model.card_form == ""


async def test_the_args_models_own_messages_stop_a_bad_edit() -> None:
    model, _, intents = editing()
    field(model, "dashboard_id").value = ""
    assert await model.submit_edit() is False
    assert field(model, "dashboard_id").error == "String should have at least 1 character"
    assert intents.decided == [] and model.card_form == "edit"


async def test_on_the_russian_page_the_messages_are_russian_too() -> None:
    model, _, intents = make()
    model.set_language("ru")
    model.show_confirmation(deploy_card("prod"))
    assert model.begin_edit()
    field(model, "dashboard_id").value = ""
    assert await model.submit_edit() is False
    assert field(model, "dashboard_id").error == "Минимальная длина — 1"
    assert intents.decided == []
    model.cancel_edit()
    card = deploy_card("prod")
    meta = card.metadata.model_copy(
        update={"tool_name": "execute_migration", "tool_args": {"dashboard_ids": ["1"]}}
    )
    model.show_confirmation(card.model_copy(update={"metadata": meta}))
    assert model.begin_edit()
    field(model, "database_mapping").value = "{not json"
    assert await model.submit_edit() is False
    assert field(model, "database_mapping").error == "это не JSON"


async def test_an_edit_waits_for_a_dangerous_countdown_like_confirm() -> None:
    model, clock, intents = editing(deploy_card(dangerous=True))
    assert await model.submit_edit() is False and intents.decided == []
    clock.advance(10.1)
    model.tick()
    assert await model.submit_edit() is True


def test_escape_closes_the_form_and_a_new_card_closes_it_too() -> None:
    model, _, _ = editing()
    model.cancel_edit()
    assert model.card_form == ""
    model.begin_edit()
    model.show_confirmation(deploy_card("prod"))
    assert model.card_form == ""


# ---- cancel: one click, an optional reason ----------------------------------------------


@pytest.mark.parametrize(("typed", "sent"), [("  wrong env ", "wrong env"), ("   ", None)])
async def test_cancel_takes_the_optional_reason_typed_on_the_card(
    typed: str, sent: str | None
) -> None:
    model, _, intents = make()
    model.show_confirmation(deploy_card())
    model.deny_reason = typed
    assert await model.cancel_card() is True  # one action, no form in between
    assert intents.decided == [("deny", sent)]


async def test_cancel_is_one_click_on_a_dangerous_card_during_its_countdown() -> None:
    model, _, intents = make()
    model.show_confirmation(deploy_card("prod", dangerous=True))
    assert model.dangerous_countdown_active and not model.confirm_enabled
    assert await model.cancel_card() is True
    assert intents.decided == [("deny", None)]


def test_a_reason_typed_for_one_card_is_gone_on_the_next() -> None:
    model, _, _ = make()
    model.show_confirmation(deploy_card())
    model.deny_reason = "typo"
    model.show_confirmation(deploy_card("prod"))
    assert model.deny_reason == ""


# ---- stop ------------------------------------------------------------------------------------


async def test_stop_is_offered_only_while_streaming() -> None:
    model, _, intents = make()
    assert await model.stop() is False
    model.begin_turn("find sales")
    assert await model.stop() is True and model.stopping
    assert await model.stop() is False  # once
    assert intents.stops == 1


@pytest.mark.parametrize(
    ("status", "hint"),
    [
        ("stopping", True),  # accepted, not confirmed: a busy replica stops it at its next step
        ("stopped", False),  # confirmed: the stream says "Stopped." at once
        ("ended", False),  # it finished on its own: its own done says so
    ],
)
async def test_a_stop_accepted_but_not_yet_confirmed_says_so_until_the_turn_stops(
    status: str, hint: bool
) -> None:
    model, _, _ = make()
    model.begin_turn("find sales")
    await model.stop()
    model.stop_answered(status)
    assert model.stopping  # the button says "Stopping…" until the stream says stopped
    assert (model.composer_hint == t("stop_accepted", "en")) is hint
    model.note_stopped([])
    assert not model.stopping and model.composer_hint == ""
    assert model.items[-1].text == t("stopped", "en")


def test_a_stop_with_a_write_in_flight_says_it_goes_on() -> None:
    model, _, _ = make()
    model.begin_turn("deploy")
    model.add_item(ToolCall(call_id="w1", tool_name="deploy_dashboard", is_write_tool=True))
    model.note_stopped(["w1"])
    assert model.tool_call("w1").goes_on and model.writes_going_on == {"w1"}
    assert "goes on" in model.items[-1].text and not model.stopping


# ---- focus -------------------------------------------------------------------------------------


def test_focus_goes_to_the_card_and_back_to_the_input() -> None:
    model, _, _ = make()
    model.show_confirmation(deploy_card())
    assert model.focus_request[0] == "card"
    model.begin_decision("confirm")
    model.end_decision("confirm", answered=True)
    assert model.focus_request[0] == "input"


# ---- restore ------------------------------------------------------------------------------------


def test_a_restore_puts_tool_cards_between_the_messages_in_order() -> None:
    model, _, _ = make()
    view = FakeConversation(
        messages=[
            {"role": "user", "text": "find sales", "position": 0},
            {"role": "assistant", "text": "Found 2.", "position": 3},
        ],
        tool_calls=[
            {"call_id": "c1", "tool_name": "search_dashboards", "status": "completed",
             "result": "[]", "position": 1},
            {"call_id": "c2", "tool_name": "run_backup", "status": "pending",
             "is_write_tool": True, "position": 2},
        ],
    )  # fmt: skip
    StreamProcessor(model).restore(view)
    kinds = [getattr(i, "tool_name", None) or i.text for i in model.items]
    assert kinds == ["find sales", "search_dashboards", "run_backup", "Found 2."]
    assert model.tool_call("c2").status == "executing"  # no result yet: still running
