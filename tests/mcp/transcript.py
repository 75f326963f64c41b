"""A :class:`~tests.mcp.clients.WireLog` as a readable markdown transcript: each HTTP
request the client sent with its JSON-RPC body, each response's status and the JSON-RPC
messages it carried, in the order the client saw them; long strings and lists trimmed."""

from __future__ import annotations

import json
from typing import Any

from tests.mcp.clients import Exchange

MAX_STRING = 600
MAX_ITEMS = 2


def trim(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_STRING:
        return value[:MAX_STRING] + f"… (+{len(value) - MAX_STRING} chars)"
    if isinstance(value, list):
        kept = [trim(v) for v in value[:MAX_ITEMS]]
        return kept + ([f"… (+{len(value) - MAX_ITEMS} more)"] if len(value) > MAX_ITEMS else [])
    if isinstance(value, dict):
        return {k: trim(v) for k, v in value.items()}
    return value


def _label(message: Any) -> str:
    if not isinstance(message, dict):
        return ""
    if "method" in message:
        kind = "request" if "id" in message else "notification"
        return f"{kind} `{message['method']}`"
    if "result" in message:
        return f"result of #{message.get('id')}"
    if "error" in message:
        return f"error of #{message.get('id')}"
    return ""


def render(entries: list[Exchange], *, title: str, intro: str) -> str:
    out = [f"# {title}", "", intro, ""]
    for e in entries:
        if e.summary in ("message", "text"):
            out.append(f"**server → client**: {_label(e.message)}")
        elif e.direction == "->":
            label = _label(e.message)
            out.append(f"**client → server** `{e.summary}`" + (f": {label}" if label else ""))
        else:
            out.append(f"↳ HTTP `{e.summary}`")
            out.append("")
            continue
        if e.message is not None:
            body = json.dumps(trim(e.message), ensure_ascii=False, indent=2)
            out += ["", "```json", body, "```"]
            if isinstance(e.message, dict) and e.message.get("method") == "elicitation/create":
                text = e.message["params"]["message"]
                out += ["", "The form's message, as the client shows it:", "", "```", text, "```"]
        out.append("")
    return "\n".join(out).rstrip() + "\n"
