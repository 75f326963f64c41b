"""Who is calling through ``/mcp``, with which client, looking at what.

* The principal was verified by the HTTP door (:mod:`app.mcp.http`) for this very HTTP
  request and left on the request's state; handlers read it from there, never from the
  session, so an expired token stops working mid-session.
* The client's name comes from ``initialize`` ``clientInfo`` (or the 2026 request
  envelope); it goes into every audit row as ``client``.
* The optional page-like ``context`` (``objectType``, ``objectId``, ``envId``, ...) is
  validated exactly like the page's UIContext. Where it is read, first match wins:
  the call's ``_meta.context``, the reserved ``context`` argument of ``tools/call``, the
  session's ``initialize`` ``_meta.context``, the client's
  ``capabilities.experimental.context``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcp.server import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from app.auth import Principal
from app.context import UIContext, validate_uicontext
from app.errors import UIContextError

PRINCIPAL_STATE = "ss_tools_principal"
CONTEXT_KEY = "context"

__all__ = [
    "CONTEXT_KEY",
    "PRINCIPAL_STATE",
    "Caller",
    "InvalidContext",
    "caller_of",
    "request_context",
    "session_context",
    "split_call_context",
    "validate_context",
]


class InvalidContext(UIContextError):
    """The ``context`` object is not a valid UIContext (413 or 422 like the HTTP API)."""

    def to_mcp(self) -> MCPError:
        return MCPError(
            code=INVALID_PARAMS,
            message=f"invalid_uicontext: {self.reason}",
            data={"error": "invalid_uicontext", "reason": self.reason, "status": self.status_code},
        )


@dataclass(frozen=True)
class Caller:
    principal: Principal
    client: str | None
    base_url: str  # where a person opens /agent (public base URL, else this request's)


def caller_of(ctx: ServerRequestContext[Any, Any], public_base_url: str | None = None) -> Caller:
    """Who calls (the door's verified principal), with which client, and where a person
    opens /agent (``public_base_url`` — ``Settings.public_base_url`` — else this
    request's base URL)."""
    request = ctx.request
    principal = getattr(getattr(request, "state", None), PRINCIPAL_STATE, None)
    if not isinstance(principal, Principal):  # only reachable if the door was bypassed
        raise MCPError(code=INTERNAL_ERROR, message="unauthenticated request reached a handler")
    params = ctx.session.client_params
    client = params.client_info.name if params is not None else None
    base = public_base_url or str(getattr(request, "base_url", "") or "")
    return Caller(principal=principal, client=client, base_url=base.rstrip("/"))


def validate_context(raw: Any) -> UIContext | None:
    """A ``context`` object → UIContext (None when absent); :class:`InvalidContext`
    with the HTTP API's status and reason otherwise."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise InvalidContext(f"context must be an object, got {type(raw).__name__}")
    try:
        return validate_uicontext(dict(raw))
    except UIContextError as exc:
        raise InvalidContext(exc.reason, status_code=exc.status_code) from None


def session_context(session: ServerSession) -> Any:
    """The raw ``context`` the client declared for its whole session, if any."""
    params = session.client_params
    meta: Mapping[str, Any] = (params.meta or {}) if params is not None else {}
    if CONTEXT_KEY in meta:
        return meta[CONTEXT_KEY]
    caps = session.client_capabilities
    if caps is not None and caps.experimental and CONTEXT_KEY in caps.experimental:
        return caps.experimental[CONTEXT_KEY]
    return None


def split_call_context(
    meta: Mapping[str, Any] | None, arguments: Mapping[str, Any] | None
) -> tuple[Any, dict[str, Any], bool]:
    """``(raw context, the tool's own arguments, found)`` for one request: the reserved
    ``context`` argument is taken out of the arguments in any case."""
    args = dict(arguments or {})
    from_args = args.pop(CONTEXT_KEY, None)
    if meta and CONTEXT_KEY in meta:
        return meta[CONTEXT_KEY], args, True
    return from_args, args, from_args is not None


def request_context(
    ctx: ServerRequestContext[Any, Any], arguments: Mapping[str, Any] | None = None
) -> tuple[UIContext | None, dict[str, Any]]:
    """The validated context of this request (per call first, then per session) and
    the tool's arguments without the reserved ``context``."""
    raw, args, found = split_call_context(ctx.meta, arguments)
    return validate_context(raw if found else session_context(ctx.session)), args
