"""Confirmation.GuardV2: three-axis risk, env tiers, card states, alternatives."""

from __future__ import annotations

import pytest

from app.errors import ToolNotAvailableError
from app.events import ConfirmMetadataV2
from app.policy import (
    DEFAULT_POLICY,
    TOOL_CATALOG,
    EnvTable,
    alternatives_for,
    build_confirmation_contract_v2,
    normalize_env,
    resolve_env,
    tool_risk,
)
from app.tools.deploy.spec import DeployDashboardArgs

DEPLOY = {"dashboard_id": "42", "source_env": "dev", "target_env": "prod"}


def contract(tool, args, role="admin", env=None, **kw):
    return build_confirmation_contract_v2(tool, args, role, env, policy=DEFAULT_POLICY, **kw)


def row(name, tool, args, role, env, **expected):
    """One row of the contract's table: the call, then the contract's fields it expects."""
    return pytest.param(tool, args, role, env, expected, id=name)


@pytest.mark.parametrize(
    ("tool", "args", "role", "env", "expected"),
    [
        # TEST_EDGE deploy_to_prod: guarded write, prod context, not dangerous
        row("deploy_to_prod", "deploy_dashboard", DEPLOY, "admin", None, risk="write",
            risk_level="guarded", env_context="prod", dangerous=False, card_state="write_prod",
            requires_confirmation=True, permission_granted=True),
        # TEST_EDGE delete_dashboard_any_env: dangerous whatever the env (dev here)
        row("delete_dashboard_any_env", "delete_dashboard", {"dashboard_id": "7", "env_id": "dev"},
            "admin", None, risk="delete", risk_level="dangerous", dangerous=True,
            env_context="dev", card_state="dangerous", requires_confirmation=True),
        # TEST_EDGE search_dashboards: safe read, no card
        row("search_dashboards", "search_dashboards", {"query": "sales"}, "analyst", "prod",
            risk="read", risk_level="safe", dangerous=False, card_state="read",
            requires_confirmation=False, permission_granted=True),
        # TEST_EDGE analyst_deploy_prod: permission fails → permission_denied, never a card
        row("analyst_deploy_prod", "deploy_dashboard", DEPLOY, "analyst", None,
            permission_granted=False, required_role="admin", requires_confirmation=False,
            env_context="prod"),
        # deploy to staging is a write_staging card
        row("deploy_to_staging_arg_beats_submitted_env", "deploy_dashboard",
            {**DEPLOY, "target_env": "staging"}, "admin", "prod", env_id="staging",
            env_context="staging", card_state="write_staging"),
        # env_id arg beats the submitted env
        row("run_backup_local", "run_backup", {"env_id": "local"}, "admin", "prod-eu",
            env_id="local", env_context="dev", card_state="write_dev"),
        # no env anywhere: the card fails safe to write_prod, env_context stays None
        row("write_without_env_is_write_prod", "start_maintenance", {}, "admin", None, env_id=None,
            env_context=None, card_state="write_prod", requires_confirmation=True),
        # an env name that matches no tier is prod
        row("unknown_env_name_is_prod", "end_maintenance", {}, "admin", "qa", env_id="qa",
            env_context="prod", card_state="write_prod"),
        # SELECT through SQL Lab is a safe read
        row("sql_select_safe", "superset_execute_sql", {"sql": "SELECT 1"}, "analyst", "prod",
            risk="read", risk_level="safe", requires_confirmation=False),
        # DML through SQL Lab is guarded
        row("sql_update_guarded", "superset_execute_sql", {"sql": "UPDATE t SET a = 1"}, "analyst",
            "dev", risk="write", risk_level="guarded", card_state="write_dev"),
        # DROP through SQL Lab is dangerous
        row("sql_drop_dangerous", "superset_execute_sql", {"sql": "DROP TABLE t"}, "analyst",
            "dev", risk="delete", dangerous=True, card_state="dangerous"),
        # restore overwrites: dangerous; policy alone does not know the backup's env (the
        # guard resolves it and passes env=, see test_a_resolved_env_is_used_as_given)
        row("restore_backup_dangerous", "restore_backup", {"backup_id": "b1", "env_id": None},
            "admin", "dev", risk="delete", dangerous=True, env_id="dev", card_state="dangerous"),
    ],
)  # fmt: skip
def test_confirmation_contract_table(tool, args, role, env, expected):
    result = contract(tool, args, role, env)
    assert {k: result[k] for k in expected} == expected


def test_contract_fits_confirm_metadata_v2():
    result = contract("deploy_dashboard", DEPLOY)
    # the guard adds the undo line (app.policy.undo.undo_note): its days are a setting
    keys = set(ConfirmMetadataV2.model_fields) - {"undo", "undo_days"} | {"requires_confirmation"}
    assert set(result) == keys
    meta = ConfirmMetadataV2.model_validate(result)
    assert meta.description == "Deploy dashboard 42 from dev to prod"


def test_args_may_be_a_validated_model():
    args = DeployDashboardArgs(dashboard_id=42, target_env="staging")
    result = contract("deploy_dashboard", args)
    assert result["tool_args"]["dashboard_id"] == "42"
    assert result["description"] == "Deploy dashboard 42 to staging"


def test_denied_call_offers_alternatives_from_the_same_context():
    result = contract("deploy_dashboard", DEPLOY, "analyst", object_type="dashboard")
    actions = [a["action"] for a in result["alternatives"]]
    assert actions == [
        "search_dashboards",
        "get_health_summary",
        "run_llm_validation",
        "run_llm_documentation",
    ]
    assert all(a["prompt"] for a in result["alternatives"])
    assert "Check the health of this dashboard" in [a["prompt"] for a in result["alternatives"]]


def test_granted_call_has_no_alternatives_and_names_admin_only_roles():
    assert contract("deploy_dashboard", DEPLOY)["alternatives"] == []
    assert contract("deploy_dashboard", DEPLOY)["required_role"] == "admin"
    assert contract("search_dashboards", {})["required_role"] is None


@pytest.mark.parametrize(
    ("role", "object_type", "exclude", "first", "allowed"),
    [
        # the analyst denied a backup restore gets backup's read tool first
        ("analyst", None, "restore_backup", "list_backups", None),
        # dataset context: alternatives come from the dataset tools only
        (
            "analyst",
            "dataset",
            "superset_create_dataset",
            "superset_explore_database",
            TOOL_CATALOG.keys() - {"superset_create_dataset"},
        ),
        # an unknown role only ever gets read tools
        (
            "viewer",
            None,
            "delete_dashboard",
            "search_dashboards",
            {n for n, s in TOOL_CATALOG.items() if s.risk == "read"},
        ),
    ],
)
def test_alternatives_ranking(role, object_type, exclude, first, allowed):
    alts = alternatives_for(role, object_type, exclude, policy=DEFAULT_POLICY)
    assert 0 < len(alts) <= 4
    assert alts[0]["action"] == first
    assert exclude not in [a["action"] for a in alts]
    if allowed is not None:
        assert {a["action"] for a in alts} <= set(allowed)


def test_unknown_tool_is_an_error_not_a_card():
    with pytest.raises(ToolNotAvailableError):
        contract("rm_rf", {})
    with pytest.raises(ToolNotAvailableError):
        tool_risk("rm_rf", {}, policy=DEFAULT_POLICY)


@pytest.mark.parametrize(
    ("env_id", "tier"),
    [
        ("prod-eu", "prod"),  # contains prod
        ("PROD", "prod"),  # case-insensitive
        ("preprod", "prod"),  # "prod" wins over everything
        ("staging", "staging"),  # stag
        ("stage-2", "staging"),  # stag prefix
        ("test1", "staging"),  # test counts as staging
        ("dev", "dev"),  # dev
        ("development", "dev"),  # dev prefix
        ("local", "dev"),  # local counts as dev
        ("qa", "prod"),  # no tier matches → prod (fail safe)
        ("sandbox", "prod"),  # no tier matches → prod (fail safe)
        ("  ", None),  # blank is no env
        (None, None),  # no env
    ],
)
def test_normalize_env_table(env_id, tier):
    assert normalize_env(env_id) == tier


def test_context_env_feeds_the_contract():
    result = contract("run_backup", {}, env=None, context_env="staging")
    assert result["env_id"] == "staging" and result["card_state"] == "write_staging"


def test_alternatives_accept_any_collection_of_excluded_names():
    as_set = alternatives_for("analyst", "dashboard", {"deploy_dashboard"}, policy=DEFAULT_POLICY)
    as_str = alternatives_for("analyst", "dashboard", "deploy_dashboard", policy=DEFAULT_POLICY)
    assert as_set == as_str
    assert alternatives_for("analyst", "dashboard", None, limit=0, policy=DEFAULT_POLICY) == []


def test_a_resolved_env_is_used_as_given():
    # the guard resolves a call's env once (here: a restore's own backup env) and passes it
    env = resolve_env({"backup_id": "b1"}, backup_env="prod-eu")
    result = build_confirmation_contract_v2(
        "restore_backup", {"backup_id": "b1"}, "admin", "dev", policy=DEFAULT_POLICY, env=env
    )
    assert (result["env_id"], result["env_context"]) == ("prod-eu", "prod")
    assert result["description"] == "Restore backup b1 into prod-eu, overwriting dashboards"


@pytest.mark.parametrize(
    ("tool", "args", "env", "lang", "line"),
    [
        # the card's line is filled from the call's args and env, in the person's language
        ("deploy_dashboard", DEPLOY, None, "ru", "Развернуть дашборд 42 из dev в prod"),
        # computed fragments: no dashboards named means all of them
        ("run_backup", {}, "prod", "en", "Back up all dashboards in prod"),
        ("run_backup", {"dashboard_ids": ["1", "2"]}, "dev", "ru", "Сделать резервную копию: "
         "дашборды 1, 2 в dev"),
        # long SQL is cut to one line
        ("superset_execute_sql", {"sql": "SELECT\n  1"}, "dev", "en", "Run SQL on dev: SELECT 1"),
        # no env anywhere: the card says so
        ("end_maintenance", {}, None, "en", "End maintenance on the selected environment"),
        ("end_maintenance", {}, None, "ru", "Завершить обслуживание выбранное окружение"),
    ],
)  # fmt: skip
def test_card_line_table(tool, args, env, lang, line):
    assert contract(tool, args, env=env, lang=lang)["description"] == line


@pytest.mark.parametrize(
    ("tiers", "env", "expected"),
    [
        # TIER: a configured tier wins over the id: test-main configured prod is prod
        ({"test-main": "prod"}, "test-main", ("prod", "write_prod")),
        # without a configured tier, "test" reads as staging
        ({"test-main": None}, "test-main", ("staging", "write_staging")),
        # a configured dev tier makes even a "prod"-named env dev
        ({"prod-copy": "dev"}, "prod-copy", ("dev", "write_dev")),
    ],
)
def test_configured_tier_decides_the_card(tiers, env, expected):
    result = contract("run_backup", {}, env=env, envs=EnvTable.configured(tiers))
    assert (result["env_context"], result["card_state"]) == expected
