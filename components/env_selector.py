"""Environment selector fed by the configured environments.

Choosing an environment calls ``model.update_active_env`` (which keeps the context's envId
in sync). With none configured it is a disabled select reading "No environments configured".
"""

from __future__ import annotations

from collections.abc import Sequence

from nicegui import ui

from app.i18n import t
from app.screen.chat_model import AgentChatModel
from app.screen.uicontext import EnvOption


def env_options(
    environments: Sequence[EnvOption], active: str | None, active_tier: str | None = None
) -> dict[str, str]:
    options = {env.id: env.label for env in environments}
    if active and active not in options:  # a deep link to an env outside the list
        options[active] = EnvOption(active, tier=active_tier).label
    return options


def env_selector(model: AgentChatModel) -> ui.select:
    lang = model.lang
    if not model.environments:
        select = ui.select({"": t("no_environments", lang)}, value="", label=t("environment", lang))
        select.disable()
        return select.classes("min-w-[12rem]").props("dense dark outlined").mark("env-selector")
    select = ui.select(
        env_options(
            model.environments,
            model.active_env_id,
            model.told_tier(model.active_env_id) if model.active_env_id else None,
        ),
        label=t("environment", lang),
        on_change=lambda e: model.update_active_env(e.value),
    ).bind_value_from(model, "active_env_id")
    return select.classes("min-w-[12rem]").props("dense dark outlined").mark("env-selector")
