"""Pure helpers of the page's context: URL params → UIContext dict, env tiers, labels."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.screen.i18n import t

OBJECT_TYPES = ("dashboard", "dataset", "migration")
FIELD_LIMITS = {"objectId": 64, "objectName": 256, "envId": 64, "route": 256}


def env_tier(env_id: str | None, environments: list[dict[str, Any]] | None = None) -> str | None:
    """The configured tier of ``env_id``, else the policy's name rule (unknown → prod)."""
    if not env_id:
        return None
    for env in environments or []:
        if env.get("id") == env_id and env.get("tier") in ("dev", "staging", "prod"):
            return str(env["tier"])
    from app.policy import normalize_env

    return normalize_env(env_id)


def valid_env_id(value: str | None) -> str | None:
    if value and all(c.isalnum() or c in "_.-" for c in value):
        return value
    return None


def context_from_params(
    params: Mapping[str, str | None],
) -> tuple[dict[str, Any] | None, str | None]:
    """(UIContext dict with contextVersion 1 or None, envId). A malformed objectType → null;
    over-long fields are cut to the server's limits; a malformed envId is dropped."""
    raw_type = params.get("objectType") or ""
    object_type = raw_type if raw_type in OBJECT_TYPES else None
    fields = {k: (params.get(k) or "")[:limit] or None for k, limit in FIELD_LIMITS.items()}
    env_id = valid_env_id(fields["envId"])
    if object_type is None and not fields["objectId"] and not fields["objectName"]:
        return None, env_id
    context = {
        "objectType": object_type,
        "objectId": fields["objectId"],
        "objectName": fields["objectName"],
        "envId": env_id,
        "route": fields["route"] or "/agent",
        "contextVersion": 1,
    }
    return context, env_id


def pill_label(context: dict[str, Any] | None, env: str | None, lang: str) -> str:
    """ "Dashboard · Sales (#42) · prod", or "No context selected" without an objectType."""
    if not context or not context.get("objectType"):
        return t("no_context", lang)
    head = t(f"object_{context['objectType']}", lang)
    name, oid = context.get("objectName"), context.get("objectId")
    named = " ".join(p for p in (name, f"(#{oid})" if oid else None) if p)
    parts = [f"{head} · {named}" if named else head]
    if env:
        parts.append(env)
    return " · ".join(parts)


def env_badge(meta: dict[str, Any], lang: str) -> str:
    """The confirmation card's env badge: "prod", or "prod-eu · prod" when they differ."""
    env, tier = meta.get("env_id"), meta.get("env_context")
    if env and tier and env != tier:
        return f"{env} · {tier}"
    return env or tier or t("env_unknown", lang)
