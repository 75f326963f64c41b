"""Test doubles for the /agent page: a scripted backend and a fake clock."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

Script = list[dict[str, Any]] | Callable[[str], list[dict[str, Any]]]


class FakeClock:
    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class ScriptedBackend:
    """Yields prepared event dicts; records every call for assertions."""

    def __init__(
        self,
        replies: Script | None = None,
        *,
        on_confirm: list[dict[str, Any]] | None = None,
        on_deny: list[dict[str, Any]] | None = None,
        conversation: dict[str, Any] | None = None,
        environments: list[dict[str, Any]] | None = None,
        fail_stream: BaseException | None = None,
    ) -> None:
        self.replies = replies if replies is not None else []
        self.on_confirm = on_confirm or []
        self.on_deny = on_deny or []
        self.conv = conversation or {"messages": [], "pending_confirmation": None}
        self.envs = environments or []
        self.fail_stream = fail_stream
        self.sent: list[dict[str, Any]] = []
        self.decisions: list[dict[str, Any]] = []

    async def stream(self, **kwargs: Any) -> AsyncIterator[dict[str, Any]]:
        self.sent.append(kwargs)
        if self.fail_stream is not None:
            raise self.fail_stream
        script = self.replies(kwargs["message"]) if callable(self.replies) else self.replies
        for event in script:
            yield event

    async def resume(self, **kwargs: Any) -> AsyncIterator[dict[str, Any]]:
        self.decisions.append(kwargs)
        for event in self.on_confirm if kwargs["decision"] == "confirm" else self.on_deny:
            yield event

    async def conversation(self, **kwargs: Any) -> dict[str, Any]:
        return self.conv

    def environments(self) -> list[dict[str, Any]]:
        return list(self.envs)


ENVS = [
    {"id": "dev", "name": "Development", "tier": "dev", "url": "http://dev"},
    {"id": "staging", "name": "Staging", "tier": "staging", "url": "http://staging"},
    {"id": "prod", "name": "Production", "tier": "prod", "url": "http://prod"},
]


def confirm_event(
    card_state: str = "write_dev",
    *,
    tool: str = "deploy_dashboard",
    env: str = "dev",
    dangerous: bool = False,
    countdown_s: int = 0,
    granted: bool = True,
    details: dict[str, Any] | None = None,
) -> dict[str, Any]:
    risk = "delete" if dangerous else ("read" if card_state == "read" else "write")
    return {
        "type": "confirm_required",
        "conv_id": "c1",
        "seq": 3,
        "confirmation_id": "conf-1",
        "call_id": "call-9",
        "countdown_s": countdown_s,
        "metadata": {
            "tool_name": tool,
            "tool_args": {"dashboard_id": "42", "env_id": env},
            "risk": risk,
            "risk_level": "dangerous" if dangerous else "guarded",
            "dangerous": dangerous,
            "env_id": env,
            "env_context": env if env in ("dev", "staging", "prod") else "prod",
            "permission_granted": granted,
            "required_role": None if granted else "admin",
            "alternatives": [] if granted else [{"action": "search", "prompt": "find it"}],
            "card_state": card_state,
            "details": details,
            "description": f"{tool.replace('_', ' ').capitalize()} 42 on {env}",
        },
    }


def done(state: str = "idle") -> dict[str, Any]:
    return {"type": "done", "state": state}
