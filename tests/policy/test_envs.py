"""The one environment resolver: which environment a call acts on, and its tier."""

from __future__ import annotations

import pytest

from app.policy import EnvTable, default_env, derive_tier, resolve_env, tier_of

TABLE = EnvTable.configured({"dev": "dev", "test-main": "prod", "prod-eu": None})


@pytest.mark.parametrize(
    ("env_id", "tiers", "expected"),
    [
        ("test-main", {"test-main": "prod"}, "prod"),  # a configured tier wins over the id
        ("test-main", {"test-main": None}, "staging"),  # unset: derived ("test" → staging)
        ("test-main", {}, "staging"),  # not configured at all: derived
        ("prod-copy", {"prod-copy": "dev"}, "dev"),  # configured dev beats a "prod" id
        ("qa", {}, "prod"),  # nothing matches: prod (fail safe)
        (None, {}, None),  # no env: no tier
        ("  ", {"  ": "dev"}, None),  # blank is no env
    ],
)
def test_tier_of_table(env_id, tiers, expected):
    assert tier_of(env_id, EnvTable(tiers=tiers)) == expected


@pytest.mark.parametrize(
    ("tiers", "expected"),
    [
        ({}, None),  # no environment at all
        ({"prod": "prod"}, "prod"),  # the only env, whatever its tier
        ({"prod": "prod", "stage": "staging", "dev2": "dev"}, "dev2"),  # the first dev
        ({"prod": None, "local": None}, "local"),  # dev by the derived rule too
        ({"prod": "prod", "stage": "staging"}, "prod"),  # no dev: the first
        ({"dev": "prod", "sandbox": "dev"}, "sandbox"),  # configured tiers decide
    ],
)
def test_default_env_table(tiers, expected):
    assert default_env(tiers) == expected
    assert EnvTable.configured(tiers).default == expected


@pytest.mark.parametrize(
    ("args", "submitted", "context", "backup", "expected"),
    [
        # target_env first (deploy, migration), then env_id
        ({"target_env": "prod-eu", "env_id": "dev"}, "dev", "dev", None, ("prod-eu", "args")),
        ({"env_id": "test-main"}, "dev", None, None, ("test-main", "args")),
        # then the submitted env, then the page's UIContext env
        ({"env_id": None}, "test-main", "dev", None, ("test-main", "submitted")),
        ({}, None, "prod-eu", None, ("prod-eu", "context")),
        # then a backup's own env, then the registry default
        ({}, None, None, "prod-eu", ("prod-eu", "backup")),
        ({}, "  ", "", None, ("dev", "default")),
    ],
)
def test_resolve_env_table(args, submitted, context, backup, expected):
    choice = resolve_env(args, submitted=submitted, context=context, backup_env=backup, envs=TABLE)
    assert (choice.env_id, choice.source) == expected
    assert choice.tier == tier_of(choice.env_id, TABLE)


def test_nothing_configured_and_nothing_named_is_prod():
    choice = resolve_env({}, envs=EnvTable())
    assert (choice.env_id, choice.tier, choice.source, choice.is_prod) == (
        None,
        "prod",
        "none",
        True,
    )


def test_derive_tier_knows_only_the_id():
    assert derive_tier("test-main") == "staging"  # the configured tier is tier_of's business
