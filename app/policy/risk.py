"""Risk of one call, on three axes: what the tool does, where, and who asks.

* tool risk: the catalog's risk, except ``superset_execute_sql`` whose SQL is parsed;
  read → ``safe``, write → ``guarded``, delete → ``dangerous``;
* environment: the call's target env (``target_env`` arg > ``env_id`` arg > the
  submitted env > the page's env), normalised to a tier by :func:`normalize_env`;
* permission: :func:`app.policy.pipeline.enforce_tool_permission`.

Fail safe: an env name that matches no tier counts as prod, and so does an unknown
(None) env when choosing the card state of a write (``write_prod``); ``env_context``
itself stays None then, so the card can say "selected environment".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel

from app.errors import ToolNotAvailableError
from app.policy.catalog import ALL_ROLES, ToolSpec
from app.policy.config import Policy, active_policy
from app.policy.pipeline import alternatives_for, enforce_tool_permission, required_role_for
from app.policy.sql import Risk, classify_sql, sql_risk

EnvTier = Literal["dev", "staging", "prod"]
RiskLevel = Literal["safe", "guarded", "dangerous"]
RISK_LEVELS: dict[str, RiskLevel] = {"read": "safe", "write": "guarded", "delete": "dangerous"}
SQL_TOOL = "superset_execute_sql"


def normalize_env(env_id: str | None) -> EnvTier | None:
    """Tier of an environment id: prod / staging / dev; unknown names are prod."""
    if env_id is None or not str(env_id).strip():
        return None
    name = str(env_id).strip().lower()
    if "prod" in name:
        return "prod"
    if "stag" in name or "test" in name:
        return "staging"
    if "dev" in name or "local" in name:
        return "dev"
    return "prod"


def _as_dict(tool_args: Mapping[str, Any] | BaseModel | None) -> dict[str, Any]:
    if tool_args is None:
        return {}
    if isinstance(tool_args, BaseModel):
        return tool_args.model_dump()
    return dict(tool_args)


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def resolve_target_env(
    tool_args: Mapping[str, Any] | BaseModel | None,
    submitted_env: str | None = None,
    context_env: str | None = None,
) -> str | None:
    """The env a call acts on: target_env arg > env_id arg > submitted env > page env.

    ``restore_backup`` without ``env_id`` restores into the backup's own env, which
    policy cannot know: None (the caller may pass the backup's env as ``env_id``).
    """
    args = _as_dict(tool_args)
    if "backup_id" in args and "env_id" in args and _text(args.get("env_id")) is None:
        return None
    for candidate in (args.get("target_env"), args.get("env_id"), submitted_env, context_env):
        if (text := _text(candidate)) is not None:
            return text
    return None


def _spec_or_raise(tool_name: str, policy: Policy) -> ToolSpec:
    spec = policy.spec(tool_name)
    if spec is None:
        raise ToolNotAvailableError(f"unknown tool {tool_name!r}", tool_name=tool_name)
    return spec


def tool_risk(
    tool_name: str,
    tool_args: Mapping[str, Any] | BaseModel | None = None,
    *,
    policy: Policy | None = None,
) -> Risk:
    """Risk of one call: the catalog's, or the parsed SQL's for superset_execute_sql."""
    spec = _spec_or_raise(tool_name, policy or active_policy())
    if tool_name == SQL_TOOL:
        return sql_risk(_as_dict(tool_args).get("sql"))
    return spec.risk


def card_state(risk: Risk, tier: EnvTier | None) -> str:
    if risk == "delete":
        return "dangerous"
    if risk == "read":
        return "read"
    return f"write_{tier or 'prod'}"


def _ids(values: Any) -> str:
    items = [str(v) for v in values or []]
    return ", ".join(items)


def _one_line(text: Any, limit: int = 80) -> str:
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def describe_call(tool_name: str, args: Mapping[str, Any], env_id: str | None) -> str:
    """One human line saying what the call will do, e.g. "Deploy dashboard 42 to prod"."""
    env = env_id or "the selected environment"
    source = f" from {args['source_env']}" if args.get("source_env") else ""
    dashboards = _ids(args.get("dashboard_ids"))
    match tool_name:
        case "deploy_dashboard":
            return f"Deploy dashboard {args.get('dashboard_id')}{source} to {env}"
        case "execute_migration":
            n = len(args.get("dashboard_ids") or [])
            return f"Migrate {n} dashboard(s) ({dashboards}){source} to {env}"
        case "delete_dashboard":
            return f"Delete dashboard {args.get('dashboard_id')} in {env}"
        case "restore_backup":
            where = env_id or "its own environment"
            return f"Restore backup {args.get('backup_id')} into {where}, overwriting dashboards"
        case "run_backup":
            what = f"dashboards {dashboards}" if dashboards else "all dashboards"
            return f"Back up {what} in {env}"
        case "start_maintenance":
            minutes = args.get("duration_minutes")
            span = f" for {minutes} min" if minutes else ""
            reason = f": {_one_line(args['reason'])}" if args.get("reason") else ""
            return f"Start maintenance on {env}{span}{reason}"
        case "end_maintenance":
            return f"End maintenance on {env}"
        case "create_branch":
            about = f" for dashboard {args['dashboard_id']}" if args.get("dashboard_id") else ""
            return f"Create git branch {args.get('branch')}{about}"
        case "commit_changes":
            what = f"dashboards {dashboards}" if dashboards else "all dashboards"
            return f"Commit {what} from {env} to git: {_one_line(args.get('message'))}"
        case "superset_execute_sql":
            return f"Run SQL on {env}: {_one_line(args.get('sql'))}"
        case "superset_create_dataset":
            schema = f"{args['schema']}." if args.get("schema") else ""
            return f"Create dataset {schema}{args.get('table_name')} in {env}"
        case "search_dashboards":
            return f"Search dashboards for {args.get('query', '')!r} in {env}"
    if args.get("dashboard_id"):
        return f"{tool_name.replace('_', ' ').capitalize()} for dashboard {args['dashboard_id']}"
    return f"{tool_name.replace('_', ' ').capitalize()} in {env}"


# --- security helper's addition (issue 9 item 4): the card says why a SQL call is risky ---
def sql_details(tool_name: str, args: Mapping[str, Any]) -> dict[str, str] | None:
    """``{"sql_risk_reason": …}`` for ``superset_execute_sql`` (e.g. "calls pg_sleep(),
    which has side effects"), else None."""
    if tool_name != SQL_TOOL:
        return None
    return {"sql_risk_reason": classify_sql(args.get("sql")).reason}


def build_confirmation_contract_v2(
    tool_name: str,
    tool_args: Mapping[str, Any] | BaseModel | None,
    user_role: str | None,
    target_env: str | None,
    *,
    context_env: str | None = None,
    object_type: str | None = None,
    policy: Policy | None = None,
) -> dict[str, Any]:
    """The confirm card's data (keys of ``ConfirmMetadataV2``) + ``requires_confirmation``.

    ``target_env`` is the submitted env; ``context_env`` the page's UIContext env.
    A refused permission gives ``permission_granted=False``, ``requires_confirmation=False``
    and ``alternatives``: the caller emits ``permission_denied``, never a confirm card.
    Unknown tools raise ``ToolNotAvailableError``.
    """
    policy = policy or active_policy()
    spec = _spec_or_raise(tool_name, policy)
    args = _as_dict(tool_args)
    risk = tool_risk(tool_name, args, policy=policy)
    env_id = resolve_target_env(args, target_env, context_env)
    tier = normalize_env(env_id)
    decision = enforce_tool_permission(tool_name, user_role, policy=policy)
    granted = decision.allowed
    if granted:
        required = None if ALL_ROLES <= spec.roles else required_role_for(spec)
        alternatives: list[dict[str, str]] = []
        needs_card = risk != "read" or spec.confirm == "always"
    else:
        required = decision.required_role
        alternatives = alternatives_for(user_role, object_type, tool_name, policy=policy)
        needs_card = False
    return {
        "tool_name": tool_name,
        "tool_args": args,
        "risk": risk,
        "risk_level": RISK_LEVELS[risk],
        "dangerous": risk == "delete",
        "env_id": env_id,
        "env_context": tier,
        "permission_granted": granted,
        "required_role": required,
        "alternatives": alternatives,
        "card_state": card_state(risk, tier),
        "details": sql_details(tool_name, args),
        "description": describe_call(tool_name, args, env_id),
        "requires_confirmation": needs_card,
    }
