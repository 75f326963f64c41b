"""The optional webhook of new approval requests (``SS_TOOLS_APPROVAL_WEBHOOK_URL``).

Each new request is posted as one JSON object a Slack or Microsoft Teams *incoming
webhook* takes as it is — ``text`` (one line a person reads in the channel) — with the
request's facts beside it for anything that reads JSON (``approval``: id, tool,
arguments, environment, tier, risk, requester, expiry, and the link to ``/approvals``)::

    {"text": "alice asks a second person to approve <tool> on prod …",
     "approval": {"id": "…", "tool": "<tool>", "arguments": {…}, …}}

Never a secret: the arguments are redacted as in the audit log (``app.text.redact``) and
no token, password or internal URL of Superset is sent. The post runs in a worker thread
with a timeout, never on the event loop; a failure is audited
(``approval_webhook_failed``) and logged, never raised: the request waits in the queue
whatever the webhook does.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

import httpx

from app.text import redact

log = logging.getLogger("ss_tools.approvals")


def webhook_payload(request: Mapping[str, Any], *, base_url: str | None) -> dict[str, Any]:
    """The JSON posted for a new request (``request``: the approval's view)."""
    link = f"{base_url.rstrip('/')}/approvals" if base_url else "/approvals"
    where = f" on {request['env_id']}" if request.get("env_id") else ""
    tier = f" ({request['tier']})" if request.get("tier") else ""
    text = (
        f"{request['requester']} asks a second person to approve {request['tool']}"
        f"{where}{tier} — {request['risk_level']}. Review it at {link} "
        f"(request {request['id']}, expires {request['expires_at']})."
    )
    facts = {
        "id": request["id"],
        "tool": request["tool"],
        "arguments": redact(dict(request.get("args") or {})),
        "env_id": request.get("env_id"),
        "tier": request.get("tier"),
        "risk_level": request.get("risk_level"),
        "requester": request["requester"],
        "created_at": request.get("created_at"),
        "expires_at": request.get("expires_at"),
        "url": link,
    }
    return {"text": text, "approval": facts}


def _post(url: str, payload: dict[str, Any], timeout_s: float) -> int:
    """Blocking: the receiver's status code (raises ``httpx.HTTPError``)."""
    response = httpx.post(url, json=payload, timeout=timeout_s, follow_redirects=False)
    return response.status_code


async def post_webhook(url: str, payload: dict[str, Any], timeout_s: float) -> str | None:
    """Post ``payload`` off the event loop; None when the receiver took it (2xx), else
    what went wrong (for the audit row), never the exception itself."""
    try:
        status = await asyncio.to_thread(_post, url, payload, timeout_s)
    except httpx.HTTPError as exc:
        log.warning("approval webhook not delivered: %s", type(exc).__name__)
        return f"not delivered: {type(exc).__name__}"
    if not 200 <= status < 300:
        log.warning("approval webhook answered %s", status)
        return f"the receiver answered {status}"
    return None
