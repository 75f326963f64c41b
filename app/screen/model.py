"""AgentChatModel: the /agent page's screen model (plain Python, no ``nicegui.ui``).

One instance per page visit. Components bind to its fields and call its actions; the
StreamProcessor is the only code that turns agent events into its state. The model owns
the dangerous-action countdown: ``start_dangerous_countdown()`` sets a deadline on the
model's clock and ``tick()`` (driven by the page's ``ui.timer``, or by tests with a fake
clock) recomputes the seconds left.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
import uuid
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from nicegui import binding

from app.screen.backend import CONFIRM, DENY, Backend
from app.screen.i18n import t
from app.screen.items import ChatItems, ToolCall, format_args
from app.screen.stream import StreamProcessor
from app.screen.uicontext import context_from_params, env_badge, env_tier, pill_label

STATES = (
    "idle",
    "streaming",
    "awaiting_confirmation",
    "error",
    "disconnected",
    "disconnected_permanent",
)
CONFIRMABLE = ("read", "write_dev", "write_staging", "write_prod", "dangerous")


class AgentChatModel(ChatItems):
    state = binding.BindableProperty()
    lang = binding.BindableProperty()
    ui_context = binding.BindableProperty()
    active_env_id = binding.BindableProperty()
    is_prod_context = binding.BindableProperty()
    context_pill_label = binding.BindableProperty()
    process_step = binding.BindableProperty()
    pending_confirmation = binding.BindableProperty()
    card_state = binding.BindableProperty()
    confirm_enabled = binding.BindableProperty()
    confirm_tool = binding.BindableProperty()
    confirm_description = binding.BindableProperty()
    confirm_args_text = binding.BindableProperty()
    confirm_details_text = binding.BindableProperty()
    confirm_env_badge = binding.BindableProperty()
    dangerous_countdown = binding.BindableProperty()
    dangerous_countdown_active = binding.BindableProperty()
    countdown_text = binding.BindableProperty()
    permission_denied = binding.BindableProperty()
    permission_alternatives = binding.BindableProperty()
    permission_text = binding.BindableProperty()
    is_empty = binding.BindableProperty()
    answered_by = binding.BindableProperty()

    def __init__(
        self,
        backend: Backend,
        *,
        user_id: str,
        user_jwt: str,
        role: str = "analyst",
        lang: str = "en",
        conv_id: str | None = None,
        environments: list[dict[str, Any]] | None = None,
        clock: Callable[[], float] = time.monotonic,
        default_countdown_s: int = 10,
        reconnect_delays_s: tuple[float, ...] = (1.0, 2.0, 4.0),
    ) -> None:
        self.backend = backend
        self.user_id, self.user_jwt, self.role = user_id, user_jwt, role
        self.conv_id = conv_id or uuid.uuid4().hex
        self.environments = list(environments or [])
        self.clock = clock
        self.default_countdown_s = default_countdown_s
        self.reconnect_delays_s = reconnect_delays_s
        ChatItems.__init__(self)
        self._countdown_deadline: float | None = None
        self.last_user_text = ""
        self.processor = StreamProcessor(self)
        self.state, self.lang = "idle", lang
        self.ui_context: dict[str, Any] | None = None
        self.active_env_id: str | None = None
        self.is_prod_context = False
        self.context_pill_label = t("no_context", lang)
        self.process_step = "context"
        self.pending_confirmation: dict[str, Any] | None = None
        self.card_state = ""
        self.confirm_enabled = False
        self.confirm_tool = self.confirm_args_text = self.confirm_details_text = ""
        self.confirm_description = ""
        self.confirm_env_badge = ""
        self.dangerous_countdown, self.dangerous_countdown_active = 0, False
        self.countdown_text = ""
        self.permission_denied: dict[str, Any] | None = None
        self.permission_alternatives: list[dict[str, str]] | None = None
        self.permission_text = ""
        self.is_empty = True
        self.answered_by = ""

    # ---- context and environment -----------------------------------------------------
    def set_ui_context_from_params(self, params: Mapping[str, str | None]) -> None:
        """URL params → UIContext (contextVersion 1); a malformed objectType becomes null."""
        self.ui_context, self.active_env_id = context_from_params(params)
        self._refresh_context()

    def update_active_env(self, env_id: str | None) -> None:
        """Select an environment and keep ``ui_context.envId`` in sync."""
        self.active_env_id = env_id or None
        if self.ui_context is not None:
            self.ui_context = {**self.ui_context, "envId": self.active_env_id}
        self._refresh_context()

    def set_language(self, lang: str) -> None:
        self.lang = lang
        self._refresh_context()
        self._refresh_countdown_text()

    def _refresh_context(self) -> None:
        env = (self.ui_context or {}).get("envId") or self.active_env_id
        self.is_prod_context = env_tier(env, self.environments) == "prod"
        self.context_pill_label = pill_label(self.ui_context, env, self.lang)

    # ---- countdown --------------------------------------------------------------------
    def start_dangerous_countdown(self, seconds: int | None = None) -> None:
        total = self.default_countdown_s if seconds is None else max(0, int(seconds))
        self._countdown_deadline = self.clock() + total
        self.dangerous_countdown = total
        self.dangerous_countdown_active = total > 0
        self._refresh_confirm()

    def tick(self) -> None:
        """Recompute the seconds left on the model's clock (no-op when idle)."""
        if not self.dangerous_countdown_active or self._countdown_deadline is None:
            return
        left = max(0, math.ceil(self._countdown_deadline - self.clock() - 1e-9))
        if left != self.dangerous_countdown:
            self.dangerous_countdown = left
        if left == 0:
            self.dangerous_countdown_active = False
        self._refresh_confirm()

    def _stop_countdown(self) -> None:
        self._countdown_deadline = None
        self.dangerous_countdown, self.dangerous_countdown_active = 0, False

    def _refresh_countdown_text(self) -> None:
        if self.card_state != "dangerous":
            self.countdown_text = ""
        elif self.dangerous_countdown_active:
            self.countdown_text = t("countdown", self.lang, n=self.dangerous_countdown)
        else:
            self.countdown_text = t("countdown_done", self.lang)

    def _refresh_confirm(self) -> None:
        self.confirm_enabled = self.card_state in CONFIRMABLE and not (
            self.card_state == "dangerous" and self.dangerous_countdown_active
        )
        self._refresh_countdown_text()

    # ---- confirmation and permission (called by the StreamProcessor) ------------------
    def show_confirmation(self, event: dict[str, Any]) -> None:
        meta = event.get("metadata") or {}
        self.pending_confirmation = event
        state = "dangerous" if meta.get("dangerous") else meta.get("card_state") or "read"
        self.card_state = state if state in CONFIRMABLE else "read"
        self.confirm_tool = str(meta.get("tool_name", ""))
        self.confirm_description = str(meta.get("description") or "")
        self.confirm_args_text = format_args(meta.get("tool_args"))
        details = meta.get("details")
        self.confirm_details_text = (
            json.dumps(details, ensure_ascii=False, indent=2) if details else ""
        )
        self.confirm_env_badge = env_badge(meta, self.lang)
        if self.card_state == "dangerous":
            self.start_dangerous_countdown(event.get("countdown_s") or self.default_countdown_s)
        else:
            self._stop_countdown()
        self.state, self.process_step = "awaiting_confirmation", "confirm"
        self._refresh_confirm()

    def clear_confirmation(self) -> None:
        self.pending_confirmation = None
        self.card_state = ""
        self._stop_countdown()
        self._refresh_confirm()

    def show_permission_denied(self, event: dict[str, Any]) -> None:
        self.permission_denied = event
        self.permission_alternatives = list(event.get("alternatives") or [])
        self.permission_text = t(
            "requires_role",
            self.lang,
            tool=event.get("tool_name", ""),
            role=event.get("required_role", "admin"),
        )

    def dismiss_permission(self) -> None:
        self.permission_denied = None
        self.permission_alternatives = None

    def close_permission_card(self) -> None:
        """The user closed the card: the alternatives stay in the chat as an agent message."""
        if self.permission_denied is None:
            return
        lines = [self.permission_text]
        if self.permission_alternatives:
            lines.append(t("alternatives", self.lang))
            lines += [f"- {alt.get('prompt', '')}" for alt in self.permission_alternatives]
        self.dismiss_permission()
        self.add_message("assistant", "\n".join(lines), "notice")

    # ---- actions ----------------------------------------------------------------------
    async def send(self, text: str) -> None:
        text = text.strip()
        if not text or self.state in ("streaming", "awaiting_confirmation"):
            return
        self.dismiss_permission()
        self.last_user_text = text
        history = self.history()
        self.add_message("user", text)
        uicontext = json.dumps(self.ui_context) if self.ui_context else None
        events = self.backend.stream(
            message=text,
            history=history,
            conv_id=self.conv_id,
            user_id=self.user_id,
            user_jwt=self.user_jwt,
            env_id=self.active_env_id,
            uicontext_str=uicontext,
        )
        await self._run(events)

    async def confirm(self) -> bool:
        """Approve the pending confirmation; refused while the countdown runs."""
        if not self.confirm_enabled or self.pending_confirmation is None:
            return False
        await self._decide(CONFIRM, "loading_confirm", None)
        return True

    async def deny(self, reason: str | None = None) -> bool:
        if self.pending_confirmation is None or self.card_state not in CONFIRMABLE:
            return False
        seen = await self._decide(DENY, "loading_deny", reason)
        if not seen:
            self.add_message("assistant", t("operation_cancelled", self.lang))
        return True

    async def _decide(self, decision: str, loading: str, reason: str | None) -> int:
        event = self.pending_confirmation or {}
        self.card_state = loading
        self._stop_countdown()
        self._refresh_confirm()
        events = self.backend.resume(
            conv_id=self.conv_id,
            user_jwt=self.user_jwt,
            confirmation_id=str(event.get("confirmation_id", "")),
            decision=decision,
            reason=reason,
        )
        seen = await self._run(events)
        if self.card_state == loading:
            self.clear_confirmation()
            if self.state == "awaiting_confirmation":
                self.state = "idle"
        return seen

    async def retry(self, call: ToolCall) -> None:
        """Re-send the last user message (offered for read tools and transient errors)."""
        if call.can_retry and self.last_user_text:
            self.last_user_text, text = "", self.last_user_text
            await self.send(text)

    async def check_status(self, call: ToolCall) -> None:
        await self.send(t("check_status_prompt", self.lang, tool=call.tool_name))

    async def _run(self, events: AsyncIterator[dict[str, Any]]) -> int:
        """Feed a stream to the processor; returns how many assistant messages it showed."""
        self.state, self.process_step = "streaming", "thinking"
        try:
            seen = await self.processor.run(events)
        except (ConnectionError, OSError):
            self.state = "disconnected"
            await self.reconnect()
            return 0
        if self.state == "streaming":
            self.state = "idle"
        return seen

    async def reconnect(self) -> bool:
        """Reload the conversation with backoff; give up as disconnected_permanent."""
        for delay in self.reconnect_delays_s:
            await asyncio.sleep(delay)
            try:
                await self.restore()
            except (ConnectionError, OSError):
                continue
            return True
        self.state = "disconnected_permanent"
        return False

    async def restore(self) -> None:
        """Rebuild the chat (history + a pending confirmation) from the backend."""
        conv = await self.backend.conversation(conv_id=self.conv_id, user_jwt=self.user_jwt)
        self.processor.restore(conv)

    def reset(self, conv_id: str | None = None) -> None:
        """Start over (new conversation, or before restoring one)."""
        self.conv_id = conv_id or uuid.uuid4().hex
        self.clear_confirmation()
        self.dismiss_permission()
        self.state, self.process_step, self.is_empty = "idle", "context", True
        self._clear_items()
