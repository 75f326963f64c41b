"""policy.toml: overrides that the catalog functions honour, and configs refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.agent.rules import Rules, default_policy
from app.errors import ConfigError
from app.policy import (
    Policy,
    build_confirmation_contract_v2,
    build_tool_pipeline,
    enforce_tool_permission,
)
from app.policy import load_policy as load_onto
from app.superset.registry import EnvironmentRegistry

DEFAULT_POLICY = default_policy()


def load_policy(path: Path) -> Policy:
    """The policy file applied to the tool declarations' catalog."""
    return load_onto(path, policy=DEFAULT_POLICY)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_overrides_roles_timeout_and_confirm(tmp_path: Path):
    policy = load_policy(
        write(
            tmp_path,
            """
            [roles]
            extra = ["viewer"]

            [tools.superset_execute_sql]
            roles = ["admin"]
            timeout_s = 45
            confirm = "always"

            [tools.run_backup]
            roles = ["admin", "analyst"]

            [tools.list_backups]
            roles = ["admin", "viewer"]
            """,
        )
    )
    sql = policy.spec("superset_execute_sql")
    assert sql.roles == {"admin"} and sql.timeout_s == 45.0 and sql.confirm == "always"
    assert policy.roles == ("admin", "analyst", "viewer")
    # the catalog functions honour it
    assert enforce_tool_permission("superset_execute_sql", "analyst", policy=policy).outcome == (
        "deny"
    )
    assert enforce_tool_permission("run_backup", "analyst", policy=policy).outcome == "allow"
    # a SELECT is safe, but confirm="always" still asks for a card
    card = build_confirmation_contract_v2(
        "superset_execute_sql", {"sql": "SELECT 1"}, "admin", "dev", policy=policy
    )
    assert card["risk_level"] == "safe" and card["requires_confirmation"] is True
    # an extra role gets least privilege plus what lists it
    viewer = set(build_tool_pipeline(policy.catalog, "viewer", None, policy=policy).tools)
    assert "list_backups" in viewer and "search_dashboards" in viewer
    assert "superset_execute_sql" not in viewer and "run_backup" not in viewer
    # an unknown role no longer sees list_backups: it is not open to every role
    guest = set(build_tool_pipeline(policy.catalog, "guest", None, policy=policy).tools)
    assert guest == viewer - {"list_backups"}
    # the defaults are untouched
    assert DEFAULT_POLICY.spec("superset_execute_sql").roles == {"admin", "analyst"}


def test_confirm_never_on_a_read_tool_is_allowed(tmp_path: Path):
    policy = load_policy(write(tmp_path, '[tools.search_dashboards]\nconfirm = "never"\n'))
    assert policy.spec("search_dashboards").confirm == "never"


def test_empty_file_is_the_default_policy(tmp_path: Path):
    policy = load_policy(write(tmp_path, ""))
    assert policy.catalog == DEFAULT_POLICY.catalog


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        # an unknown tool name is named in the error
        ('[tools.drop_everything]\nroles = ["admin"]\n', "drop_everything"),
        # an unknown role name is named in the error
        ('[tools.run_backup]\nroles = ["superuser"]\n', "superuser"),
        # confirmation can never be turned off for a delete tool
        ('[tools.delete_dashboard]\nconfirm = "never"\n', "delete_dashboard"),
        # ... nor for a write tool
        ('[tools.deploy_dashboard]\nconfirm = "never"\n', "deploy_dashboard"),
        # ... nor for SQL, which may write
        ('[tools.superset_execute_sql]\nconfirm = "never"\n', "superset_execute_sql"),
        # confirm takes only auto / always / never
        ('[tools.run_backup]\nconfirm = "sometimes"\n', "confirm"),
        # a tool table accepts only roles, timeout_s, confirm
        ("[tools.run_backup]\nretries = 3\n", "retries"),
        # an empty role list is refused (use fewer tools, not invisible ones)
        ("[tools.run_backup]\nroles = []\n", "roles"),
        # timeouts must be positive numbers
        ("[tools.run_backup]\ntimeout_s = 0\n", "timeout_s"),
        # ... and not absurd
        ("[tools.run_backup]\ntimeout_s = 99999\n", "timeout_s"),
        # ... and not booleans
        ("[tools.run_backup]\ntimeout_s = true\n", "timeout_s"),
        # an unknown top-level section
        ("[limits]\nx = 1\n", "limits"),
        # [roles] takes only extra
        ('[roles]\nadmins = ["x"]\n', "admins"),
        # extra roles must be non-empty strings
        ("[roles]\nextra = [1]\n", "extra"),
        # a tool entry must be a table
        ("[tools]\nrun_backup = 3\n", "run_backup"),
        # not TOML at all
        ("[tools.run_backup\n", "invalid TOML"),
    ],
)
def test_bad_policy_files_are_refused(tmp_path: Path, text: str, needle: str):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_policy(path)
    assert str(path) in str(info.value)
    assert needle in str(info.value)


def test_missing_file_is_a_config_error(tmp_path: Path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_policy(tmp_path / "nope.toml")


def test_the_rules_follow_the_policy_file_and_its_changes(tmp_path: Path):
    assert Rules(EnvironmentRegistry()).policy() is DEFAULT_POLICY  # no file: the default
    path = write(tmp_path, '[tools.run_backup]\nroles = ["admin", "analyst"]\n')
    rules = Rules(EnvironmentRegistry(), path)
    allowed = enforce_tool_permission("run_backup", "analyst", policy=rules.policy())
    assert allowed.outcome == "allow"
    assert rules.policy() is rules.policy()  # cached while the file is unchanged
    path.write_text('[tools.run_backup]\nroles = ["admin"]\ntimeout_s = 5\n', encoding="utf-8")
    os.utime(path, ns=(1, 1))  # a different mtime, whatever the clock's resolution
    policy = rules.policy()
    assert enforce_tool_permission("run_backup", "analyst", policy=policy).outcome == "deny"
    assert policy.spec("run_backup").timeout_s == 5.0


def test_rules_with_a_missing_policy_file_are_a_config_error(tmp_path: Path):
    rules = Rules(EnvironmentRegistry(), tmp_path / "missing.toml")
    with pytest.raises(ConfigError):
        rules.policy()
