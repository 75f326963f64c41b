"""Pure helpers of the page's context: URL params → UIContext dict, and labels.

The limits are the server's own (``app.context.UIContext``'s field lengths, the vocabulary's
object types and env-id pattern), so the page never keeps a second copy of them. Tiers are
not decided here: the page controller hands the model each environment's tier.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.context import UIContext
from app.i18n import t
from app.vocab import ENV_ID_PATTERN, OBJECT_TYPES

_ENV_ID = re.compile(ENV_ID_PATTERN)


@dataclass(frozen=True)
class EnvOption:
    """An environment the page can select, with the tier the resolver gave it."""

    id: str
    name: str = ""
    tier: str | None = None
    url: str = ""  # its Superset; links to these hosts stay clickable in the chat

    @property
    def label(self) -> str:
        return f"{self.name or self.id} ({self.tier or '?'})"


def _max_length(field: str) -> int:
    for constraint in UIContext.model_fields[field].metadata:
        limit = getattr(constraint, "max_length", None)  # pydantic's MaxLen constraint
        if isinstance(limit, int):
            return limit
    raise LookupError(f"UIContext.{field} declares no max_length")


FIELD_LIMITS: dict[str, int] = {
    name: _max_length(name) for name in ("objectId", "objectName", "envId", "route")
}


def valid_env_id(value: str | None) -> str | None:
    return value if value and _ENV_ID.match(value) else None


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


def env_badge(env_id: str | None, tier: str | None, lang: str) -> str:
    """The confirmation card's env badge: "prod", or "test-main · prod" when they differ
    (the tier is the one the guard resolved, carried by the event)."""
    if env_id and tier and env_id != tier:
        return f"{env_id} · {tier}"
    return env_id or tier or t("env_unknown", lang)
