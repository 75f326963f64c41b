"""The guard checks which Superset account a call acts as, after RBAC and the arguments and
before anything reaches Superset: no link is ``account_not_linked`` with a way to connect
it, a dead link ``link_expired``; a person's call runs as them and its audit rows name the
account; nothing ever falls back to another identity."""

from __future__ import annotations

from typing import Any

import pytest

from app.events import ErrorEvent, MessageEvent, ToolEndEvent
from app.superset.people import serve_people
from app.superset.registry import EnvironmentRegistry
from tests.agent.harness import Harness
from tests.agent.scripted import call, final_from_tool
from tests.identity.people_fake import PeopleSuperset, person_env


@pytest.fixture
def people(harness: Harness) -> PeopleSuperset:
    fake = PeopleSuperset()
    registry = EnvironmentRegistry([person_env()], transport=fake.transport())
    serve_people(registry, harness.parts.settings, harness.parts.db)
    harness.serve(registry)
    return fake


def _of(events: list[Any], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


async def test_no_link_is_refused_with_a_way_to_connect_and_nothing_reaches_superset(
    harness: Harness, people: PeopleSuperset
) -> None:
    harness.use(call("search_dashboards", query=""), final_from_tool, real=True)
    events = await harness.turn("list dashboards in dev", user="carol", role="analyst")
    (error,) = _of(events, ErrorEvent)
    assert error.refusal is not None
    assert (error.refusal.code, error.refusal.env_id) == ("account_not_linked", "dev")
    assert [(o.kind, o.env_id) for o in error.offers] == [("link_account", "dev")]
    (message,) = _of(events, MessageEvent)
    assert [o.kind for o in message.offers] == ["link_account"]  # the answer offers it
    assert not _of(events, ToolEndEvent)
    assert people.seen == []  # not a sign-in, not a request
    rows = harness.audit_rows(kind="account_refused")
    assert [(r["user"], r["env"], r["decision"]) for r in rows] == [("carol", "dev", "deny")]


async def test_a_linked_persons_call_runs_as_them_and_the_audit_names_the_account(
    harness: Harness, people: PeopleSuperset
) -> None:
    accounts = harness.parts.registry.accounts
    assert accounts is not None
    await accounts.link(harness.parts.registry.get("dev"), "carol", "ann", "ann-pw-1")
    await accounts.link(harness.parts.registry.get("dev"), "dave", "bob", "bob-pw-1")
    harness.use(call("search_dashboards", query=""), final_from_tool, real=True)
    carol = await harness.turn("list dashboards in dev", user="carol", role="analyst")
    harness.use(call("search_dashboards", query=""), final_from_tool, real=True)
    dave = await harness.turn("list dashboards in dev", user="dave", role="analyst")
    for events, name in ((carol, "ann"), (dave, "bob")):
        (end,) = _of(events, ToolEndEvent)
        assert end.status == "completed"
        assert [d["title"] for d in end.data["dashboards"]] == [f"{name}'s board"]
    executed = harness.audit_rows(kind="executed")
    pairs = {(r["user"], r["superset_user"]) for r in executed}
    assert pairs == {("carol", "ann"), ("dave", "bob")}
    assert people.acted_as() <= {"ann", "bob"}


async def test_a_link_superset_stopped_honouring_is_refused_and_never_replaced(
    harness: Harness, people: PeopleSuperset
) -> None:
    registry = harness.parts.registry
    assert registry.accounts is not None
    await registry.accounts.link(registry.get("dev"), "carol", "ann", "ann-pw-1")
    linked = len(people.seen)
    harness.use(call("search_dashboards", query=""), final_from_tool, real=True)
    await harness.turn("list dashboards in dev", user="carol", role="analyst")
    people.inactive.add("ann")  # an administrator deactivated her in Superset
    before = len(people.seen)
    harness.use(call("search_dashboards", query=""), final_from_tool, real=True)
    events = await harness.turn("list dashboards in dev", user="carol", role="analyst")
    (error,) = _of(events, ErrorEvent)
    assert error.refusal is not None and error.refusal.code == "link_expired"
    assert [o.kind for o in error.offers] == ["link_account"]
    after = people.seen[before:]  # her request refused, her refresh refused: nobody else's
    assert [p for _, p, _ in after] == ["/api/v1/dashboard/", "/api/v1/security/refresh"]
    assert {user for _, _, user in after} <= {"ann", None}
    assert not any(p == "/api/v1/security/login" for _, p, _ in people.seen[linked:])
    harness.use(call("search_dashboards", query=""), final_from_tool, real=True)
    again = await harness.turn("list dashboards in dev", user="carol", role="analyst")
    (error,) = _of(again, ErrorEvent)  # the next call: refused by the guard from the row
    assert error.refusal is not None and error.refusal.code == "link_expired"
    kinds = [r["kind"] for r in harness.audit_rows(user="carol")]
    assert "superset_link_expired" in kinds


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_the_offline_planner_says_the_refusal_in_the_turns_language(
    harness: Harness, people: PeopleSuperset, lang: str
) -> None:
    from app.llm import get_chat_model

    planner = get_chat_model(harness.parts.settings, harness.parts.rules.policy().catalog)
    harness.use(model=planner, real=True)
    ask = "list dashboards in dev" if lang == "en" else "покажи дашборды в dev"
    events = await harness.turn(ask, user="carol", role="analyst")
    (message,) = _of(events, MessageEvent)
    assert [o.kind for o in message.offers] == ["link_account"]
    expected = "not connected" if lang == "en" else "не подключена"
    assert expected in message.text


async def test_a_turn_on_a_person_environment_offers_to_connect_whatever_the_model_does(
    harness: Harness, people: PeopleSuperset
) -> None:
    """A model that answers without any call still leaves the way to connect the account;
    once linked, the offer is gone."""
    harness.use("Hello! Ask me about your dashboards.")
    events = await harness.turn("hello", user="carol", role="analyst")
    (message,) = _of(events, MessageEvent)
    assert [(o.kind, o.env_id) for o in message.offers] == [("link_account", "dev")]
    accounts = harness.parts.registry.accounts
    assert accounts is not None
    await accounts.link(harness.parts.registry.get("dev"), "carol", "ann", "ann-pw-1")
    harness.use("Hello again.")
    events = await harness.turn("hello", user="carol", role="analyst")
    (message,) = _of(events, MessageEvent)
    assert message.offers == []
