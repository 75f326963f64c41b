"""The catalog: the contract's 22 ToolSpecs and their argument names as in
docs/contract.md; and what every declared tool must have, however many there are.

Each tool's spec is in its family's ``app/tools/<family>/spec.py``, joined into
``app.tools.catalog.TOOL_CATALOG``, which policy reads (``app.policy.TOOL_CATALOG``); the
contract's tables are views of the specs' roles and pages."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from pydantic_core import PydanticUndefined

from app.agent.prompt import tool_schema
from app.policy import CONTEXT_TOOL_AFFINITY, ROLES, TOOL_CATALOG, TOOL_PERMISSIONS
from app.tools.args import ru_texts
from app.tools.declare import default_roles
from tests.policy.contract import ADMIN_ONLY, CONTRACT_ADMIN_ONLY

ALL = frozenset(ROLES)
ADMIN = frozenset({"admin"})

# docs/contract.md "The tool catalog": tool → (risk, roles, affinity).
DESIGN_TABLE: dict[str, tuple[str, frozenset[str], set[str]]] = {
    "show_capabilities": ("read", ALL, set()),
    "list_environments": ("read", ALL, {"dataset", "migration"}),
    "get_task_status": ("read", ALL, {"dataset"}),
    "search_dashboards": ("read", ALL, {"dashboard", "dataset", "migration"}),
    "get_health_summary": ("read", ALL, {"dashboard", "migration"}),
    "run_llm_validation": ("read", ALL, {"dashboard"}),
    "run_llm_documentation": ("read", ALL, {"dashboard"}),
    "superset_explore_database": ("read", ALL, {"dataset"}),
    "superset_format_sql": ("read", ALL, {"dataset"}),
    "superset_audit_permissions": ("read", ALL, {"dataset"}),
    "superset_execute_sql": ("write", ALL, {"dataset"}),  # per call: tool_risk parses the SQL
    "superset_create_dataset": ("write", ALL, {"dataset"}),
    "list_backups": ("read", ALL, set()),
    "deploy_dashboard": ("write", ADMIN, {"dashboard", "migration"}),
    "execute_migration": ("write", ADMIN, {"dashboard", "migration"}),
    "create_branch": ("write", ADMIN, {"dashboard"}),
    "commit_changes": ("write", ADMIN, {"dashboard"}),
    "run_backup": ("write", ADMIN, set()),
    "start_maintenance": ("write", ADMIN, set()),
    "end_maintenance": ("write", ADMIN, set()),
    "delete_dashboard": ("delete", ADMIN, set()),
    "restore_backup": ("delete", ADMIN, set()),
}

LONG_TASKS = {
    "deploy_dashboard",
    "execute_migration",
    "run_backup",
    "restore_backup",
    "delete_dashboard",
    "undo_change",  # an undo restores or deletes as much as the write it undoes
}

REQUIRED = PydanticUndefined
# docs/contract.md "The tool catalog", its arguments: tool → {arg: default} (REQUIRED = no default).
ARGS_TABLE: dict[str, dict[str, Any]] = {
    "show_capabilities": {},
    "list_environments": {},
    "get_task_status": {"task_id": None},
    "search_dashboards": {"query": "", "env_id": None, "page": 0, "page_size": 25},
    "get_health_summary": {"dashboard_id": REQUIRED, "env_id": None},
    "run_llm_validation": {"dashboard_id": REQUIRED, "env_id": None},
    "run_llm_documentation": {"dashboard_id": REQUIRED, "env_id": None},
    "superset_explore_database": {"env_id": None, "database": None, "schema": None, "table": None},
    "superset_format_sql": {"sql": REQUIRED, "env_id": None},
    "superset_execute_sql": {
        "sql": REQUIRED,
        "database": None,
        "schema": None,
        "env_id": None,
        "row_limit": 100,
    },
    "superset_create_dataset": {
        "database": REQUIRED,
        "table_name": REQUIRED,
        "schema": None,
        "sql": None,
        "env_id": None,
    },
    "superset_audit_permissions": {"env_id": None, "role": None},
    "list_backups": {"env_id": None, "dashboard_id": None},
    "deploy_dashboard": {"dashboard_id": REQUIRED, "source_env": None, "target_env": REQUIRED},
    "execute_migration": {
        "dashboard_ids": REQUIRED,
        "source_env": None,
        "target_env": REQUIRED,
        "database_mapping": {},
    },
    "create_branch": {"branch": REQUIRED, "dashboard_id": None, "env_id": None},
    "commit_changes": {"message": REQUIRED, "dashboard_ids": [], "branch": None, "env_id": None},
    "run_backup": {"env_id": None, "dashboard_ids": []},
    "restore_backup": {"backup_id": REQUIRED, "env_id": None},
    "start_maintenance": {"env_id": None, "reason": "", "duration_minutes": None},
    "end_maintenance": {"env_id": None},
    "delete_dashboard": {"dashboard_id": REQUIRED, "env_id": None},
}


def test_catalog_has_the_22_tools_of_the_design():
    assert len(DESIGN_TABLE) == 22
    assert set(DESIGN_TABLE) == set(ARGS_TABLE)
    assert set(DESIGN_TABLE) <= set(TOOL_CATALOG)


@pytest.mark.parametrize("name", list(DESIGN_TABLE))
def test_spec_matches_design_row(name: str):
    spec = TOOL_CATALOG[name]
    risk, roles, affinity = DESIGN_TABLE[name]
    assert (spec.risk, spec.roles, set(spec.affinity)) == (risk, roles, affinity)
    assert spec.read_only == (risk == "read")
    # long tasks wait for their task (docs/contract.md, decision 10); the rest: the default
    assert spec.timeout_s == (600.0 if name in LONG_TASKS else None)


@pytest.mark.parametrize("name", list(TOOL_CATALOG))
def test_every_declared_tool_is_described_for_a_model_and_a_person(name: str):
    spec = TOOL_CATALOG[name]
    assert spec.confirm == "auto"
    # the LLM reads this: what it does, when to use it, what it returns
    assert len(spec.description) > 80 and "Returns" in spec.description
    assert spec.example_prompt
    # the offline planner and the page read these: what it can do, a request for it
    assert spec.can is not None and spec.can.en and spec.can.ru
    assert spec.example is not None and spec.example.en == spec.example_prompt
    assert spec.example.ru
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.risk = "read"  # type: ignore[misc]


@pytest.mark.parametrize("name", list(TOOL_CATALOG))
def test_every_declared_tools_arguments_bind_as_a_strict_described_schema(name: str):
    model = TOOL_CATALOG[name].args_model
    for arg, info in model.model_fields.items():
        assert info.description, f"{name}.{arg} needs a description for the LLM"
    schema = model.model_json_schema()
    assert json.dumps(schema)  # binds as an LLM tool schema
    assert schema.get("additionalProperties") is False


CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)


@pytest.mark.parametrize("name", list(TOOL_CATALOG))
def test_every_argument_has_russian_texts_for_the_form_and_none_reach_the_model(name: str):
    """The Russian page's edit form labels and explains every field in Russian
    (``tools.base.arg``); the model's schema (``app.agent.prompt.tool_schema``) stays English."""
    spec = TOOL_CATALOG[name]
    for arg, info in spec.args_model.model_fields.items():
        ru = ru_texts(info)
        assert ru is not None, f"{name}.{arg} needs Ru(label, hint) for the Russian page"
        assert ru.label and CYRILLIC.search(ru.hint), f"{name}.{arg}"  # (a label may be "SQL")
    assert not CYRILLIC.search(json.dumps(tool_schema(spec), ensure_ascii=False))


def test_affinity_and_permissions_match_the_contract():
    assert {k: len(v) for k, v in CONTEXT_TOOL_AFFINITY.items()} == {
        "dashboard": 8,
        "dataset": 8,
        "migration": 5,
    }
    # the contract's seven plus docs/contract.md's delete_dashboard and restore_backup
    assert len(CONTRACT_ADMIN_ONLY) == 7 and CONTRACT_ADMIN_ONLY <= set(TOOL_PERMISSIONS)
    assert set(TOOL_PERMISSIONS) == ADMIN_ONLY
    assert all(roles == ["admin"] for roles in TOOL_PERMISSIONS.values())


def test_the_contracts_tools_keep_their_roles_and_a_new_write_is_closed_by_default():
    admin_only = set(TOOL_PERMISSIONS)
    for name, spec in TOOL_CATALOG.items():
        expected = {"admin"} if name in admin_only else set(ROLES)
        assert set(spec.roles) == expected, name  # the 22: the contract's table, else all
    assert default_roles("read") == frozenset(ROLES)  # a new read that names no roles
    assert default_roles("write") == frozenset({"admin"})  # a new write: closed by default
    assert default_roles("delete") == frozenset({"admin"})
    assert TOOL_CATALOG["superset_create_dataset"].roles == frozenset(ROLES)  # contract's


@pytest.mark.parametrize("name", list(ARGS_TABLE))
def test_args_model_matches_developers_table(name: str):
    model = TOOL_CATALOG[name].args_model
    fields = model.model_fields
    assert list(fields) == list(ARGS_TABLE[name])
    for arg, default in ARGS_TABLE[name].items():
        info = fields[arg]
        assert info.description, f"{name}.{arg} needs a description for the LLM"
        if default is REQUIRED:
            assert info.is_required(), f"{name}.{arg} is required"
        else:
            assert info.get_default(call_default_factory=True) == default
    schema = model.model_json_schema()
    assert json.dumps(schema)  # binds as an LLM tool schema
    assert schema.get("additionalProperties") is False


@pytest.mark.parametrize(
    ("name", "payload", "ok"),
    [
        # models send numeric ids: coerced to strings
        ("get_health_summary", {"dashboard_id": 42}, True),
        # list ids too
        ("execute_migration", {"dashboard_ids": [1, "b"], "target_env": "prod"}, True),
        # unknown args are refused rather than silently dropped
        ("delete_dashboard", {"dashboard_id": "1", "force": True}, False),
        # a required arg is required
        ("deploy_dashboard", {"dashboard_id": "1"}, False),
        # an empty migration migrates nothing: refused
        ("execute_migration", {"dashboard_ids": [], "target_env": "prod"}, False),
        # page sizes are bounded
        ("search_dashboards", {"page_size": 1000}, False),
        # row limits are bounded
        ("superset_execute_sql", {"sql": "SELECT 1", "row_limit": 0}, False),
        # schema is a normal field despite shadowing a BaseModel attribute
        ("superset_explore_database", {"schema": "public"}, True),
    ],
)
def test_args_validation(name: str, payload: dict[str, Any], ok: bool):
    model = TOOL_CATALOG[name].args_model
    if ok:
        args = model.model_validate(payload)
        if "dashboard_id" in payload:
            assert args.dashboard_id == "42"
        if "schema" in payload:
            assert args.schema == "public"
        if "dashboard_ids" in payload:
            assert args.dashboard_ids == ["1", "b"]
    else:
        with pytest.raises(ValidationError):
            model.model_validate(payload)


def test_policy_and_context_import_no_io_frameworks():
    """Nor ``app.agent``, nor a tool's implementation (``app/tools/<family>/run.py``) or the
    registry of them, with the product's catalog loaded (the tool specs) and a
    contract call judged by it."""
    code = (
        "import sys, app.policy, app.context\n"
        "assert len(app.policy.TOOL_CATALOG) >= 22\n"
        "app.policy.build_confirmation_contract_v2('superset_execute_sql', "
        "{'sql': 'select 1'}, 'admin', 'prod')\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'sqlmodel', 'sqlalchemy', 'nicegui', 'langgraph', 'langchain', 'langchain_core', "
        "'httpx', 'fastapi'} or m.startswith('app.agent') or m == 'app.tools.registry' "
        "or m == 'app.tools.kit' or (m.startswith('app.tools.') and m.endswith('.run')))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-W", "error", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert out.stdout.strip() == ""


def test_importing_policy_leaves_the_tool_specs_until_they_are_used():
    code = (
        "import sys, app.policy\n"
        "print('app.tools.catalog' in sys.modules)\n"
        "from app.policy import TOOL_CATALOG, DEFAULT_POLICY\n"
        "print(DEFAULT_POLICY.catalog == dict(TOOL_CATALOG), 'app.tools.catalog' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert out.stdout.split() == ["False", "True", "True"]
