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
from app.text import one_line
from app.vocab import ENV_ID_PATTERN, OBJECT_ID_PATTERN, OBJECT_TYPES

_ENV_ID = re.compile(ENV_ID_PATTERN)
_OBJECT_ID = re.compile(OBJECT_ID_PATTERN)


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
    over-long fields are cut to the server's limits; a malformed envId is dropped. The link
    is data from anywhere (a Superset page, a pasted URL): an objectId that is not an id or
    a slug (``OBJECT_ID_PATTERN``) gives no context at all, and the name is one line of
    plain text (controls and format characters out, spaces collapsed)."""
    raw_type = params.get("objectType") or ""
    object_type = raw_type if raw_type in OBJECT_TYPES else None
    raw = dict(params)
    raw["objectName"] = one_line(raw.get("objectName") or "")
    fields = {k: (raw.get(k) or "")[:limit] or None for k, limit in FIELD_LIMITS.items()}
    env_id = valid_env_id(fields["envId"])
    object_id = (params.get("objectId") or "").strip()
    if object_id and not _OBJECT_ID.match(object_id):
        return None, env_id  # not an id: no object, and never a guess at one
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
    if name:
        named = f"{name} (#{oid})" if oid else name
    else:  # no name: "Dashboard · #42", not an empty name before "(#42)"
        named = f"#{oid}" if oid else ""
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


#: the deep link's params that carry a page context
CONTEXT_PARAMS = ("objectType", "objectId", "objectName", "envId")


def carries_context(params: Mapping[str, str | None]) -> bool:
    """Whether a link names a context (an object or an environment): such a visit starts
    a conversation of its own (never one whose card is about another object)."""
    return any((params.get(k) or "").strip() for k in CONTEXT_PARAMS)


def held_params(turn: Mapping[str, Any] | None) -> dict[str, str | None]:
    """The context a conversation was held in (its latest turn: the UIContext and the
    selected environment), as deep-link params."""
    turn = turn or {}
    ui = turn.get("uicontext") or {}
    params = {k: (str(ui[k]) if ui.get(k) is not None else None) for k in CONTEXT_PARAMS}
    params["envId"] = params["envId"] or turn.get("selected_env")
    return params


def context_key(context: Mapping[str, Any] | None, env: str | None) -> tuple[Any, ...]:
    """What makes two contexts the same: the object (type and id) and the environment."""
    ctx = context or {}
    return (ctx.get("objectType"), str(ctx.get("objectId") or "") or None, env or None)


def call_object(args: Mapping[str, Any]) -> tuple[str, str] | None:
    """The object a call's arguments name (``dashboard_id: 2`` → ("dashboard", "2")),
    or None when they name no single object."""
    for object_type in OBJECT_TYPES:
        value = args.get(f"{object_type}_id")
        if value not in (None, ""):
            return object_type, str(value)
        many = args.get(f"{object_type}_ids")
        if isinstance(many, list) and len(many) == 1:
            return object_type, str(many[0])
    return None


def card_target(
    args: Mapping[str, Any], env_id: str | None, context: Mapping[str, Any] | None, lang: str
) -> str:
    """The confirmation card's header line: the object the call acts on and its
    environment ("Dashboard · Sales (#1) · prod"); the page context lends the object's
    name when it is that same object."""
    obj = call_object(args)
    ctx = context or {}
    if obj is None:
        return env_id or ""
    object_type, oid = obj
    same = ctx.get("objectType") == object_type and str(ctx.get("objectId") or "") == oid
    named = {"objectType": object_type, "objectId": oid}
    if same and ctx.get("objectName"):
        named["objectName"] = ctx["objectName"]
    return pill_label(named, env_id, lang)


def card_off_context(
    args: Mapping[str, Any],
    env_id: str | None,
    context: Mapping[str, Any] | None,
    page_env: str | None,
) -> bool:
    """Whether a card acts on another object or environment than the pill names (the
    card then says so: it never passes for the pill's object)."""
    ctx = context or {}
    if not ctx.get("objectType"):
        return False  # the pill names no object (nor an environment)
    if env_id and page_env and env_id != page_env:
        return True
    obj = call_object(args)
    if obj is None or not ctx.get("objectId"):
        return False
    return obj != (ctx["objectType"], str(ctx["objectId"]))
