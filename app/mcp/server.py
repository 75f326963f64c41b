"""The MCP server behind ``/mcp``: ``tools/list`` and ``tools/call`` on the gateway.

Built on the SDK's low-level :class:`mcp.server.Server` (the tool list is per caller, so
the decorator-style ``MCPServer`` does not fit). Nothing here decides: the list is the
gateway's answer for the caller's role and context, a call is the gateway's events read
to one result, and a pending confirmation is asked through elicitation
(:mod:`app.mcp.confirm`).

Each tool carries its args model's JSON schema and the annotations of its declaration:
``readOnlyHint`` (risk read), ``destructiveHint`` (risk delete), ``idempotentHint`` and
``openWorldHint``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from app.auth import Principal
from app.mcp.approvals import DOOR_TOOLS, ApprovalDoor, call_door_tool, door_tools
from app.mcp.caller import (
    CONTEXT_KEY,
    PRINCIPAL_STATE,
    InvalidContext,
    caller_of,
    request_context,
    validate_context,
)
from app.mcp.card import PendingCard
from app.mcp.confirm import (
    NOT_SHOWN,
    Decider,
    ask_input,
    can_elicit_form,
    confirm_in_band,
    continue_input,
)
from app.mcp.gateway import GatewayRefused, ToolCallRequest, ToolGateway, ToolInfo
from app.mcp.results import collect, pending_result, refused_outcome, to_result
from app.settings import Settings

SERVER_NAME = "ss-tools"
INSTRUCTIONS = (
    "Tools of the ss-tools agent for Apache Superset environments (dev, staging, prod). "
    "The list is filtered for your role. Writes and deletes ask a person to confirm: "
    "the server asks through an elicitation form, or answers with a link where the "
    "person confirms. A call that answers 'confirmation required' has not run; do not "
    "repeat it. Pass the page-like context (objectType, objectId, envId) as the "
    "'context' object in _meta or as the reserved 'context' argument."
)

__all__ = ["SERVER_NAME", "build_server", "tool_of"]


def tool_of(info: ToolInfo) -> types.Tool:
    schema = dict(info.input_schema or {})
    schema.setdefault("type", "object")  # MCP wants an object at the root
    if schema["type"] == "object":
        schema.setdefault("properties", {})
    return types.Tool(
        name=info.name,
        title=info.title,
        description=info.description,
        input_schema=schema,
        annotations=types.ToolAnnotations(
            title=info.title,
            read_only_hint=info.risk == "read",
            destructive_hint=info.risk == "delete",
            idempotent_hint=info.idempotent,
            open_world_hint=info.open_world,
        ),
    )


def _invalid_context_result(exc: InvalidContext) -> types.CallToolResult:
    structured = {"error": "invalid_uicontext", "reason": exc.reason, "status": exc.status_code}
    return types.CallToolResult(
        content=[types.TextContent(text=f"invalid_uicontext: {exc.reason}")],
        structured_content=structured,
        is_error=True,
    )


class _Handlers:
    def __init__(
        self, gateway: Callable[[], ToolGateway], settings: Callable[[], Settings]
    ) -> None:
        self.gateway = gateway
        self.settings = settings

    async def list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        caller = caller_of(ctx, self.settings().public_base_url)
        try:
            uictx, _ = request_context(ctx)
        except InvalidContext as exc:
            raise exc.to_mcp() from None
        gateway = self.gateway()
        infos = await gateway.list_tools(caller.principal, uictx)
        extra = door_tools() if self._approvals(gateway) is not None else []
        return types.ListToolsResult(tools=[*(tool_of(i) for i in infos), *extra])

    @staticmethod
    def _approvals(gateway: ToolGateway) -> ApprovalDoor | None:
        """The approval queue's door tools, while policy turns four-eyes on."""
        door: ApprovalDoor | None = getattr(gateway, "approvals", None)
        return door if door is not None and door.enabled() else None

    async def call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        settings = self.settings()
        caller = caller_of(ctx, settings.public_base_url)
        gateway = self.gateway()
        decider = Decider(
            gateway,
            caller,
            on_progress=ctx.session.report_progress,
            answer_timeout_s=float(settings.confirmation_ttl_s),
        )
        if params.request_state is not None:  # a 2026 retry carrying the person's answer
            return await continue_input(decider, params)
        approvals = self._approvals(gateway) if params.name in DOOR_TOOLS else None
        if approvals is not None:  # four-eyes: the queue, a decision (the core's rules)
            args = dict(params.arguments or {})
            return await call_door_tool(
                approvals, caller.principal, caller.client, params.name, args
            )
        try:
            uictx, args = request_context(ctx, params.arguments)
        except InvalidContext as exc:
            return _invalid_context_result(exc)
        req = ToolCallRequest(
            principal=caller.principal,
            conv_id=f"mcp-{uuid.uuid4().hex}",
            tool_name=params.name,
            arguments=args,
            uicontext=uictx,
            client=caller.client,
        )
        try:
            outcome = await collect(
                gateway.call_tool(req), tool_name=params.name, on_progress=decider.on_progress
            )
        except GatewayRefused as exc:
            outcome = refused_outcome(exc, params.name)
        if outcome.pending is None:
            return to_result(outcome, base_url=caller.base_url, status_tool=gateway.status_tool)
        return await self._confirm(ctx, decider, outcome.pending)

    @staticmethod
    async def _confirm(
        ctx: ServerRequestContext[Any, Any], decider: Decider, card: PendingCard
    ) -> types.CallToolResult | types.InputRequiredResult:
        base = decider.caller.base_url
        if not can_elicit_form(ctx.session):
            return pending_result(card, base_url=base)
        if ctx.session.can_send_request:
            return await confirm_in_band(ctx, decider, card)
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return ask_input(card)
        return pending_result(card, base_url=base, note=NOT_SHOWN)


async def _check_initialize_context(
    ctx: ServerRequestContext[Any, Any], call_next: CallNext
) -> HandlerResult:
    """Refuse the handshake when the session's ``context`` is not a valid UIContext."""
    if ctx.method == "initialize" and ctx.params:
        meta = ctx.params.get("_meta") or {}
        experimental = (ctx.params.get("capabilities") or {}).get("experimental") or {}
        raw = meta[CONTEXT_KEY] if CONTEXT_KEY in meta else experimental.get(CONTEXT_KEY)
        try:
            validate_context(raw)
        except InvalidContext as exc:
            raise exc.to_mcp() from None
    return await call_next(ctx)


def _principal_key(ctx: ServerRequestContext[Any, Any]) -> str | None:
    """Binds a sealed ``requestState`` to the user who was asked."""
    principal = getattr(getattr(ctx.request, "state", None), PRINCIPAL_STATE, None)
    return f"{principal.source}:{principal.user_id}" if isinstance(principal, Principal) else None


def build_server(
    gateway: Callable[[], ToolGateway], *, settings: Callable[[], Settings], version: str = ""
) -> Server[Any]:
    """The low-level server; ``gateway()`` and ``settings()`` are read per request (the
    composition root may hand the door new ones after the route exists); the sealed
    request state's key comes from the settings the server is built with."""
    handlers = _Handlers(gateway, settings)
    server: Server[Any] = Server(
        SERVER_NAME,
        version=version,
        title="ss-tools agent",
        instructions=INSTRUCTIONS,
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
    )
    current = settings()
    secret = current.jwt_secret.get_secret_value() + ":mcp-request-state"
    security = RequestStateSecurity(
        keys=[secret], ttl=float(current.confirmation_ttl_s), bind_principal=_principal_key
    )
    server.middleware.append(_check_initialize_context)
    server.middleware.append(RequestStateBoundary(security, default_audience=SERVER_NAME))
    return server
