"""Risk of one call, on three axes: what the tool does, where, and who asks.

* tool risk: the spec's risk, or its ``call_risk`` of this call's arguments (the parsed
  SQL of ``superset_execute_sql``); read → ``safe``, write → ``guarded``, delete →
  ``dangerous``;
* environment: :func:`app.policy.envs.resolve_env`, the one resolver (the call's
  ``target_env``/``env_id`` > the submitted env > the page's env > the registry default;
  a configured tier wins over the tier derived from the id);
* permission: :func:`app.policy.pipeline.enforce_tool_permission`.

Fail safe: an env whose tier nothing names counts as prod, and so does no env at all
when choosing the card state of a write (``write_prod``); ``env_context`` itself stays
None then, so the card can say "selected environment".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from app.errors import ToolNotAvailableError
from app.policy.catalog import ALL_ROLES, ToolSpec
from app.policy.config import Policy, in_force
from app.policy.envs import EnvChoice, EnvTable, derive_tier, resolve_env
from app.policy.pipeline import alternatives_for, enforce_tool_permission, required_role_for
from app.vocab import RISK_LEVEL, EnvTier, Risk

RISK_LEVELS = RISK_LEVEL

#: The contract's name for the tier of an id; the one rule is app.policy.envs.derive_tier.
normalize_env = derive_tier


def _as_dict(tool_args: Mapping[str, Any] | BaseModel | None) -> dict[str, Any]:
    if tool_args is None:
        return {}
    if isinstance(tool_args, BaseModel):
        return tool_args.model_dump()
    return dict(tool_args)


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
    """Risk of one call: the spec's ``call_risk`` of the arguments when it has one, else
    the spec's risk (the spec of ``policy``, default: the product's)."""
    spec = _spec_or_raise(tool_name, in_force(policy))
    if spec.call_risk is not None:
        return spec.call_risk(_as_dict(tool_args))
    return spec.risk


def card_state(risk: Risk, tier: EnvTier | None) -> str:
    if risk == "delete":
        return "dangerous"
    if risk == "read":
        return "read"
    return f"write_{tier or 'prod'}"


def build_confirmation_contract_v2(
    tool_name: str,
    tool_args: Mapping[str, Any] | BaseModel | None,
    user_role: str | None,
    target_env: str | None,
    *,
    policy: Policy | None = None,
    envs: EnvTable | None = None,
    env: EnvChoice | None = None,
    context_env: str | None = None,
    object_type: str | None = None,
    lang: str = "en",
) -> dict[str, Any]:
    """The confirm card's data (keys of ``ConfirmMetadataV2``) + ``requires_confirmation``.

    Called as the contract writes it, ``(tool_name, tool_args, user_role, target_env)``,
    it judges the call by the product's policy; ``policy`` injects another one.

    ``target_env`` is the submitted env; ``context_env`` the page's UIContext env; ``envs``
    the configured environments (their tiers and the default). ``env`` is the call's
    environment when the caller already resolved it (the guard does, once per call).
    A refused permission gives ``permission_granted=False``, ``requires_confirmation=False``
    and ``alternatives``: the caller emits ``permission_denied``, never a confirm card.
    Unknown tools raise ``ToolNotAvailableError``. ``description`` is in ``lang``.
    """
    policy = in_force(policy)
    spec = _spec_or_raise(tool_name, policy)
    args = _as_dict(tool_args)
    risk = tool_risk(tool_name, args, policy=policy)
    if env is None:
        env = resolve_env(args, submitted=target_env, context=context_env, envs=envs)
    tier = env.tier if env.env_id is not None else None
    decision = enforce_tool_permission(tool_name, user_role, policy=policy)
    granted = decision.allowed
    if granted:
        required = None if ALL_ROLES <= spec.roles else required_role_for(spec)
        alternatives: list[dict[str, str]] = []
        needs_card = risk != "read" or spec.confirm == "always"
    else:
        required = decision.required_role
        alternatives = alternatives_for(user_role, object_type, tool_name, policy=policy, lang=lang)
        needs_card = False
    return {
        "tool_name": tool_name,
        "tool_args": args,
        "risk": risk,
        "risk_level": RISK_LEVELS[risk],
        "dangerous": risk == "delete",
        "env_id": env.env_id,
        "env_context": tier,
        "permission_granted": granted,
        "required_role": required,
        "alternatives": alternatives,
        "card_state": card_state(risk, tier),
        "details": spec.call_details(args) if spec.call_details is not None else None,
        "description": spec.describe(args, env.env_id, lang),
        # the policy's wait before a dangerous card can be confirmed (the page and MCP
        # read it; the confirmation is checked against it)
        "countdown_s": policy.countdown_s if risk == "delete" and needs_card else 0,
        "requires_confirmation": needs_card,
    }
