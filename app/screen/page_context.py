"""The page's context as screen state: the UIContext from the deep link, the selected
environment, and the PRODUCTION flag that the banner and the warning background follow.

``ContextState`` is a part of :class:`app.screen.chat_model.AgentChatModel`; its fields are
written only by its own methods. It never decides a tier: the page controller tells it
each environment's tier (:meth:`set_environments`, :meth:`learn_env_tier`), and an
environment it was told nothing about counts as prod.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from nicegui.binding import BindableProperty

from app.i18n import t
from app.reasoning import cot_logger
from app.screen.uicontext import (
    EnvOption,
    carries_context,
    context_from_params,
    context_key,
    pill_label,
)


class ContextState:
    lang: str
    ui_context = BindableProperty()
    active_env_id = BindableProperty()
    is_prod_context = BindableProperty()
    context_pill_label = BindableProperty()

    def __init__(self) -> None:
        self.environments: list[EnvOption] = []
        self._tiers: dict[str, str | None] = {}
        self.ui_context = None  # dict[str, Any] | None: the UIContext (contextVersion 1)
        self.active_env_id = None  # str | None
        self.is_prod_context = False
        self.context_pill_label = t("no_context", self.lang)
        self.link_context = False  # the visit's link named a context: a conversation of its own

    def mount_context(self, params: Mapping[str, str | None]) -> None:
        """The visit's context, from its link (once, at page mount): a link that names a
        context starts a conversation of its own (see :meth:`may_show_held`)."""
        self.link_context = carries_context(params)
        self.set_ui_context_from_params(params)

    def may_show_held(self, held: Mapping[str, str | None]) -> bool:
        """Whether a remembered conversation, held in ``held`` (its latest turn's context
        as link params), may be shown on this visit: always on a visit whose link names no
        context (the page then takes the conversation's context); on a visit whose link
        names one, only a conversation held in that same context (a reload). Anything
        else starts a new conversation: a pending card never shows under a pill that
        names another object or environment."""
        if not self.link_context:
            return True
        ctx, env = context_from_params(held)
        return context_key(ctx, env) == context_key(self.ui_context, self.context_env_id)

    def take_held_context(self, held: Mapping[str, str | None]) -> None:
        """Show the context a conversation was held in (opened from the drawer, restored
        on a visit without a context of its own); a conversation held in none keeps the
        selected environment."""
        if carries_context(held):
            self.set_ui_context_from_params(held)
        else:
            self.clear_ui_context()

    def set_ui_context_from_params(self, params: Mapping[str, str | None]) -> None:
        """URL params → UIContext (contextVersion 1); a malformed objectType becomes null.
        The contract's reasoning-log line says what the page now holds."""
        self.ui_context, self.active_env_id = context_from_params(params)
        self._refresh_context()
        ctx = self.ui_context or {}
        cot_logger.reason(
            "ui context set from params",
            object_type=ctx.get("objectType"),
            object_id=ctx.get("objectId"),
            env_id=self.active_env_id,
        )

    def clear_ui_context(self) -> None:
        """Leave the page's context (the pill says so); the selected environment stays."""
        self.ui_context = None
        self._refresh_context()

    def update_active_env(self, env_id: str | None) -> None:
        """Select an environment and keep ``ui_context.envId`` in sync."""
        self.active_env_id = env_id or None
        if self.ui_context is not None:
            self.ui_context = {**self.ui_context, "envId": self.active_env_id}
        self._refresh_context()

    def set_environments(self, environments: Sequence[EnvOption]) -> None:
        """The configured environments, each with the tier the resolver gave it."""
        self.environments = list(environments)
        self._tiers.update({env.id: env.tier for env in self.environments})
        self._refresh_context()

    def learn_env_tier(self, env_id: str, tier: str | None) -> None:
        """The tier of an environment outside the list (e.g. a deep link's envId)."""
        self._tiers[env_id] = tier
        self._refresh_context()

    def knows_env(self, env_id: str) -> bool:
        return env_id in self._tiers

    def told_tier(self, env_id: str) -> str | None:
        """The tier the controller gave ``env_id`` (None when it gave none)."""
        return self._tiers.get(env_id)

    @property
    def context_env_id(self) -> str | None:
        """The environment the page is about: the context's envId, else the selected one."""
        return (self.ui_context or {}).get("envId") or self.active_env_id

    def _refresh_context(self) -> None:
        env = self.context_env_id
        # an environment nobody told us the tier of counts as prod (fail safe)
        self.is_prod_context = env is not None and self._tiers.get(env, "prod") in ("prod", None)
        self.context_pill_label = pill_label(self.ui_context, env, self.lang)
