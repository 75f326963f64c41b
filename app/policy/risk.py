"""Risk of one call, on three axes: what the tool does, where, and who asks.

* tool risk: the spec's risk, or its ``call_risk`` of this call's arguments (the parsed
  SQL of a SQL tool's call); read → ``safe``, write → ``guarded``, delete →
  ``dangerous``;
* environment: :func:`resolve_env`, the one resolver (the call's
  ``target_env``/``env_id`` > the submitted env > the page's env > the registry default;
  a configured tier wins over the tier derived from the id);
* permission: :func:`app.policy.pipeline.enforce_tool_permission`.

Fail safe: an env whose tier nothing names counts as prod, and so does no env at all
when choosing the card state of a write (``write_prod``); ``env_context`` itself stays
None then, so the card can say "selected environment".

The environment axis comes first in this module: **the one answer to "which environment,
and what tier"**.

Every part that needs an environment's tier or a call's target environment asks here:
policy (risk, card state), the guard (maintenance gate, confirmation binding), the tool
seam (the environment a tool runs on), the confirmation card and the PRODUCTION banner.

Environment of a call, first of:
  1. the call's own ``target_env`` (deploy, migration) or ``env_id`` argument;
  2. the environment submitted with the turn (the page's picker, the API's ``env_id``);
  3. the page's UIContext ``envId``;
  4. the environment a restore's backup was taken on (its tool's ``resolve_target``);
  5. the registry's default (the environment a tool without one runs on).

Tier of an environment, first of:
  1. its configured ``tier`` in ``environments.toml``;
  2. derived from its id: contains "prod" → prod; "stag" or "test" → staging;
     "dev" or "local" → dev;
  3. prod (fail safe: an unknown environment, or none at all, is treated as prod).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from pydantic import BaseModel

from app.errors import ToolNotAvailableError
from app.policy.approval import needs_second_person
from app.policy.config import Policy, in_force
from app.policy.pipeline import alternatives_for, enforce_tool_permission, required_role_for
from app.policy.tables import ALL_ROLES
from app.policy.toolspec import ToolSpec
from app.vocab import ENV_TIERS, RISK_LEVEL, EnvTier, Lang, Risk

# ---- the environment of a call, and its tier ----------------------------------------
EnvSource = Literal["args", "submitted", "context", "backup", "default", "none"]


def derive_tier(env_id: str | None) -> EnvTier | None:
    """Tier from the id alone: prod / staging / dev; an unmatched id is prod; no id is None."""
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


@dataclass(frozen=True)
class EnvTable:
    """What the resolver knows of the configured environments: each id's configured tier
    (None when the file sets none) and the registry's default environment."""

    tiers: Mapping[str, EnvTier | None] = field(default_factory=dict)
    default: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "tiers", MappingProxyType(dict(self.tiers)))

    def tier_of(self, env_id: str | None) -> EnvTier | None:
        return tier_of(env_id, self)

    @classmethod
    def configured(cls, tiers: Mapping[str, EnvTier | None]) -> EnvTable:
        """The table of configured environments (file order), with :func:`default_env`."""
        return cls(tiers=tiers, default=default_env(tiers))


EMPTY_ENVS = EnvTable()


def tier(env_id: str, envs: EnvTable | None = None) -> EnvTier:
    """THE tier of an environment: its configured tier, else derived from its id, else
    prod (an environment nobody can place is treated as prod: the one fail-safe rule)."""
    configured = (envs or EMPTY_ENVS).tiers.get(env_id.strip())
    if configured in ENV_TIERS:
        return configured
    return derive_tier(env_id) or "prod"


def tier_of(env_id: str | None, envs: EnvTable | None = None) -> EnvTier | None:
    """:func:`tier` of ``env_id``; None when there is no environment at all."""
    if env_id is None or not str(env_id).strip():
        return None
    return tier(str(env_id), envs)


def default_env(tiers: Mapping[str, EnvTier | None]) -> str | None:
    """The environment a call runs on when nothing names one: the only configured env;
    else the first (file order) whose tier is dev by :func:`tier_of`; else the first."""
    ids = list(tiers)
    if len(ids) <= 1:
        return ids[0] if ids else None
    table = EnvTable(tiers=tiers)
    return next((env_id for env_id in ids if tier_of(env_id, table) == "dev"), ids[0])


@dataclass(frozen=True)
class EnvChoice:
    """The environment a call acts on, its tier (never None: no env counts as prod) and
    where the environment came from."""

    env_id: str | None
    tier: EnvTier
    source: EnvSource

    @property
    def is_prod(self) -> bool:
        return self.tier == "prod"


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


#: The arguments that place a call on an environment, in the order :func:`resolve_env`
#: reads them.
PLACING_ARGS = ("target_env", "env_id")


def resolve_env(
    tool_args: Mapping[str, Any] | None = None,
    *,
    submitted: str | None = None,
    context: str | None = None,
    backup_env: str | None = None,
    envs: EnvTable | None = None,
) -> EnvChoice:
    """The environment and tier of a call (or of the page, with ``tool_args=None``)."""
    args = dict(tool_args or {})
    candidates: tuple[tuple[EnvSource, Any], ...] = (
        *(("args", args.get(name)) for name in PLACING_ARGS),
        ("submitted", submitted),
        ("context", context),
        ("backup", backup_env),
        ("default", (envs or EMPTY_ENVS).default),
    )
    for source, candidate in candidates:
        if (env_id := _text(candidate)) is not None:
            return EnvChoice(env_id, tier(env_id, envs), source)
    return EnvChoice(None, "prod", "none")


# ---- the risk of a call ---------------------------------------------------------------
RISK_LEVELS = RISK_LEVEL

#: The contract's name for the tier of an id; the one rule is derive_tier, above.
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


def said_in(lang: str) -> Lang:
    """The card's language (English unless Russian)."""
    return "ru" if lang == "ru" else "en"


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
        # why the call is rated as it is, in ``lang`` (e.g. "templated SQL: …"), or None
        "risk_reason": spec.call_reason(args, said_in(lang)) if spec.call_reason else None,
        "description": spec.describe(args, env.env_id, lang),
        # the policy's wait before a dangerous card can be confirmed (the page and MCP
        # read it; the confirmation is checked against it)
        "countdown_s": policy.countdown_s if risk == "delete" and needs_card else 0,
        # after the person confirms, a second one must approve it too (four-eyes)
        "second_person": needs_card
        and needs_second_person(policy.approval, RISK_LEVELS[risk], tier),
        "requires_confirmation": needs_card,
    }
