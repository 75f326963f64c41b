"""The MCP door: the same guarded tools for any MCP client (Claude, Cursor, ...).

``/mcp`` speaks Streamable HTTP (the official ``mcp`` SDK). It is thin: the tool list,
every decision and every audit row come from the agent core through the
:class:`~app.mcp.gateway.ToolGateway` protocol; the door maps them onto MCP (tool
annotations, tool results, elicitation for confirmations).

Modules: ``gateway`` (the protocol), ``http`` (auth + mounting + lifecycle), ``server``
(tools/list, tools/call), ``confirm`` (elicitation), ``card`` (the card as text),
``results`` (events → tool results), ``caller`` (principal, client name, context).
"""

from app.mcp.gateway import (
    GatewayRefused,
    ToolCallRequest,
    ToolGateway,
    ToolInfo,
    ToolResumeRequest,
)
from app.mcp.http import MCP_PATH, McpDoor, mount_mcp

__all__ = [
    "MCP_PATH",
    "GatewayRefused",
    "McpDoor",
    "ToolCallRequest",
    "ToolGateway",
    "ToolInfo",
    "ToolResumeRequest",
    "mount_mcp",
]
