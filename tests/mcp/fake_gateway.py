"""A fake agent core for the MCP door's phase-1 tests (test code only, never shipped).

It keeps the core's contract as the door sees it — role- and context-filtered tool
lists, permission_denied with alternatives, confirm_required then
done(awaiting_confirmation), single-use confirmations bound to user and conversation,
the countdown gate for dangerous calls (a ``too_early`` refusal) — and writes one JSON
line per decision to a log file the tests read (the stand-in for audit rows).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from app import events
from app.auth import Principal
from app.context import UIContext
from app.mcp import GatewayRefused, ToolCallRequest, ToolInfo, ToolResumeRequest
from app.vocab import Risk
from tests.events import confirm_card


class SearchArgs(BaseModel):
    query: str = Field(default="", description="Words in the dashboard title")
    env_id: str | None = None


class DashboardArgs(BaseModel):
    dashboard_id: str
    env_id: str | None = None


class DeployArgs(BaseModel):
    dashboard_id: str
    source_env: str | None = None
    target_env: str


class MigrationArgs(BaseModel):
    dashboard_ids: list[str]
    source_env: str | None = None
    target_env: str


# name -> (args model, risk, admin only, affinity, idempotent)
TOOLS: dict[str, tuple[type[BaseModel], Risk, bool, frozenset[str], bool]] = {
    "search_dashboards": (SearchArgs, "read", False, frozenset({"dashboard"}), True),
    "get_health_summary": (DashboardArgs, "read", False, frozenset({"dashboard"}), True),
    "deploy_dashboard": (DeployArgs, "write", True, frozenset({"dashboard"}), False),
    "execute_migration": (MigrationArgs, "write", True, frozenset({"migration"}), False),
    "delete_dashboard": (DashboardArgs, "delete", True, frozenset(), False),
}


def _tier(env_id: str) -> str:
    return "prod" if "prod" in env_id else "staging" if "stag" in env_id else "dev"


class FakeGateway:
    status_tool = "get_task_status"  # the tool that reports a task (the catalog's)

    def __init__(self, log_path: Path, countdown_s: float = 2.0) -> None:
        self.log_path = log_path
        self.countdown_s = countdown_s
        self.pending: dict[str, dict[str, Any]] = {}

    def _log(self, **row: Any) -> None:
        with self.log_path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(row, default=str) + "\n")

    async def list_tools(
        self, principal: Principal, context: UIContext | None
    ) -> Sequence[ToolInfo]:
        object_type = context.objectType if context else None
        out = []
        for name, (model, risk, admin_only, affinity, idempotent) in TOOLS.items():
            if admin_only and principal.role != "admin":
                continue
            if object_type and object_type not in affinity:
                continue
            out.append(
                ToolInfo(
                    name=name,
                    description=f"{name} (fake)",
                    input_schema=model.model_json_schema(),
                    risk=risk,
                    idempotent=idempotent,
                    open_world=True,
                )
            )
        self._log(op="list", user=principal.user_id, object_type=object_type, n=len(out))
        return out

    async def call_tool(self, req: ToolCallRequest) -> AsyncIterator[events.Event]:
        conv, name, args = req.conv_id, req.tool_name, req.arguments
        ctx = req.uicontext.model_dump(exclude_none=True) if req.uicontext else None
        self._log(
            op="call",
            tool=name,
            user=req.principal.user_id,
            channel=req.channel,
            client=req.client,
            conv_id=conv,
            args=args,
            context=ctx,
        )
        if name not in TOOLS:
            yield events.ErrorEvent(conv_id=conv, code="unknown_tool", message=f"no tool {name!r}")
            yield events.DoneEvent(conv_id=conv, state="error")
            return
        _, risk, admin_only, _, _ = TOOLS[name]
        if admin_only and req.principal.role != "admin":
            self._log(op="permission_denied", tool=name, channel=req.channel, client=req.client)
            alt = events.Alternative(
                action="search_dashboards", prompt="Find the dashboard instead"
            )
            yield events.PermissionDeniedEvent(
                conv_id=conv,
                tool_name=name,
                required_role="admin",
                alternatives=[alt],
                message=f"'{name}' requires the admin role.",
            )
            yield events.DoneEvent(conv_id=conv)
            return
        env = args.get("target_env") or args.get("env_id") or (ctx or {}).get("envId") or "dev"
        if risk == "read":
            async for ev in self._run(conv, name, args, env):
                yield ev
            return
        cid = uuid.uuid4().hex
        dangerous = risk == "delete"
        self.pending[cid] = {
            "conv_id": conv,
            "user": req.principal.user_id,
            "tool": name,
            "args": args,
            "env": env,
            "dangerous": dangerous,
            "sent": time.monotonic(),
        }
        self._log(op="confirm_requested", tool=name, confirmation_id=cid, channel=req.channel)
        ids = args.get("dashboard_ids", [])
        details = {"dashboards": [{"id": i, "action": "overwrite"} for i in ids]}
        yield confirm_card(
            name,
            args,
            env=env,
            risk=risk,
            tier=_tier(env),
            countdown_s=int(self.countdown_s) if dangerous else 0,
            conv_id=conv,
            confirmation_id=cid,
            expires_at=(datetime.now(UTC) + timedelta(minutes=10)).isoformat(),
            details=details if name == "execute_migration" else None,
            description=f"{name} on {env}",
        )
        yield events.DoneEvent(conv_id=conv, state="awaiting_confirmation")

    async def _run(
        self, conv: str, name: str, args: dict[str, Any], env: str
    ) -> AsyncIterator[events.Event]:
        yield events.ToolStartEvent(conv_id=conv, call_id="call-1", tool_name=name, tool_args=args)
        yield events.ToolProgressEvent(
            conv_id=conv,
            call_id="call-1",
            tool_name=name,
            task_id="t1",
            step=1,
            total=2,
            message="working",
        )
        result = {"tool": name, "env": env, "args": args, "items": [{"id": 1, "title": "Sales"}]}
        yield events.ToolEndEvent(
            conv_id=conv,
            call_id="call-1",
            tool_name=name,
            status="completed",
            result=json.dumps(result),
        )
        self._log(op="executed", tool=name, env=env)
        yield events.DoneEvent(conv_id=conv)

    async def resume(self, req: ToolResumeRequest) -> AsyncIterator[events.Event]:
        base = {"channel": req.channel, "client": req.client, "user": req.principal.user_id}
        p = self.pending.get(req.confirmation_id)
        if p is None:
            self._log(op="confirmation_refused", reason="unknown", **base)
            raise GatewayRefused(
                "unknown confirmation", status=404, error="confirmation_refused", reason="unknown"
            )
        if p["user"] != req.principal.user_id or p["conv_id"] != req.conv_id:
            self._log(op="confirmation_refused", reason="mismatch", **base)
            raise GatewayRefused(
                "not yours", status=409, error="confirmation_refused", reason="mismatch"
            )
        early = time.monotonic() - p["sent"] < self.countdown_s
        if req.decision == "confirm" and p["dangerous"] and early:
            self._log(op="confirmation_refused", reason="too_early", **base)
            wait = f"{self.countdown_s:g} s"
            raise GatewayRefused(
                f"a dangerous operation can be confirmed only {wait} after it was shown",
                status=425,
                error="confirmation_refused",
                reason="too_early",
            )
        del self.pending[req.confirmation_id]
        conv, name = req.conv_id, p["tool"]
        if req.decision == "deny":
            self._log(op="cancelled", tool=name, reason=req.reason, **base)
            text = "cancelled by the user" + (f": {req.reason}" if req.reason else "")
            yield events.ToolEndEvent(
                conv_id=conv, call_id="call-1", tool_name=name, status="cancelled", result=text
            )
            yield events.DoneEvent(conv_id=conv)
            return
        self._log(op="confirmed", tool=name, reason=req.reason, **base)
        async for ev in self._run(conv, name, p["args"], p["env"]):
            yield ev
