"""Where a visit of /agent opens, with a fake core and a real screen model: the
environments' tiers and banner, the environment selected without one in the link, broken
environments, and deep links to a context (a new conversation, or the same one kept)."""

from __future__ import annotations

import pytest

from app.errors import ConfigError
from tests.pages.controller_setup import setup
from tests.ui import fakes
from tests.ui.made_events import confirm_event

TEST_MAIN = fakes.FakeEnv("test-main", "Main test", "prod")  # tier = "prod" in environments.toml


@pytest.mark.parametrize(
    ("env_id", "is_prod"),
    [
        ("test-main", True),  # in the list with its configured tier prod (not staging)
        ("dev", False),  # in the list as dev
        ("qa-box", True),  # outside the list: the resolver says prod (unknown → prod)
        ("team-dev", False),  # outside the list: the resolver derives dev from the id
    ],
)
def test_the_banner_follows_the_resolvers_tier(env_id, is_prod) -> None:
    core = fakes.FakeCore(environments=[*fakes.ENVS, TEST_MAIN])
    _, model, *_ = setup(core, params={"objectType": "dashboard", "envId": env_id})
    assert model.is_prod_context is is_prod


def test_a_configured_tier_outside_the_list_comes_from_the_env_table() -> None:
    core = fakes.FakeCore(environments=fakes.ENVS, configured_tiers={"test-main": "prod"})
    _, model, *_ = setup(core, params={"envId": "test-main"})
    assert model.is_prod_context  # not "staging", as its name alone would say
    assert model.told_tier("test-main") == "prod"


def test_without_an_env_in_the_link_the_first_non_prod_env_is_selected() -> None:
    core = fakes.FakeCore(environments=[fakes.ENVS[2], TEST_MAIN, fakes.ENVS[1], fakes.ENVS[0]])
    _, model, *_ = setup(core)
    assert model.active_env_id == core.default_env() and not model.is_prod_context


def test_the_page_selects_policys_default_env_not_a_rule_of_its_own() -> None:
    """[staging, dev, prod]: policy's default is dev (the least risky), and so is the page's."""
    envs = [fakes.FakeEnv("staging", "Staging", "staging"), *fakes.ENVS[:1], fakes.ENVS[2]]
    core = fakes.FakeCore(environments=envs)
    _, model, *_ = setup(core)
    assert core.default_env() == "dev" and model.active_env_id == "dev"


def test_broken_environments_warn_and_leave_the_page_usable() -> None:
    class Broken(fakes.FakeCore):
        def environments(self):
            raise ConfigError("environments.toml line 3: bad tier")

    warnings: list[str] = []
    _, model, *_ = setup(Broken(), warnings=warnings)
    assert model.environments == [] and model.active_env_id is None
    assert "bad tier" in warnings[0]


# ---- one visit, one context ----------------------------------------------------------------
SALES_PROD = {"objectType": "dashboard", "objectId": "1", "objectName": "Sales Overview"}
SALES_PROD = {**SALES_PROD, "envId": "prod"}


def _held_in_dev_with_a_pending_delete() -> fakes.FakeConversation:
    return fakes.FakeConversation(
        conv_id="old",
        messages=[{"role": "user", "text": "delete dashboard 42 in dev", "position": 0}],
        pending=confirm_event("dangerous", env="dev", dangerous=True, countdown_s=10),
        turn={"uicontext": None, "selected_env": "dev"},
    )


async def test_a_deep_link_to_another_context_starts_a_new_conversation() -> None:
    core = fakes.FakeCore(
        environments=fakes.ENVS, conversation=_held_in_dev_with_a_pending_delete()
    )
    _, model, controller, *_ = setup(core, params=SALES_PROD)
    model.conv_id = "old"  # the remembered conversation (page storage)
    shown = await controller.resume_visit()
    assert shown != "old" and model.conv_id == shown
    assert model.pending_confirmation is None and model.card_state == ""
    assert model.items == []
    assert model.context_pill_label == "Dashboard · Sales Overview (#1) · prod"


async def test_a_reload_of_the_same_deep_link_keeps_its_conversation_and_card() -> None:
    held = fakes.FakeConversation(
        conv_id="same",
        messages=[{"role": "user", "text": "delete this dashboard", "position": 0}],
        pending=confirm_event("dangerous", env="prod", dangerous=True, countdown_s=10),
        turn={"uicontext": {**SALES_PROD, "route": "/agent"}, "selected_env": "prod"},
    )
    core = fakes.FakeCore(environments=fakes.ENVS, conversation=held)
    _, model, controller, *_ = setup(core, params=SALES_PROD)
    model.conv_id = "same"
    assert await controller.resume_visit() == "same"
    assert model.card_state == "dangerous"


async def test_a_visit_without_a_context_shows_the_conversation_in_its_own_context() -> None:
    core = fakes.FakeCore(
        environments=fakes.ENVS, conversation=_held_in_dev_with_a_pending_delete()
    )
    _, model, controller, *_ = setup(core, params={})
    model.conv_id = "old"
    assert await controller.resume_visit() == "old"
    assert model.card_state == "dangerous"
    assert model.active_env_id == "dev" and not model.is_prod_context
    assert model.confirm_target == "Dashboard · #42 · dev"  # the card names its own
