"""Environment selector fed by the configured environments.

Choosing an environment calls ``model.update_active_env`` (which keeps the context's envId
in sync). With none configured it is a disabled select reading "No environments configured".
"""

from __future__ import annotations

from typing import Any

from nicegui import ui

from app.screen.i18n import t
from app.screen.model import AgentChatModel


def env_options(environments: list[dict[str, Any]], active: str | None) -> dict[str, str]:
    options = {
        str(env["id"]): f"{env.get('name') or env['id']} ({env.get('tier') or '?'})"
        for env in environments
    }
    if active and active not in options:  # a deep link to an env we do not know
        options[active] = f"{active} (?)"
    return options


def env_selector(model: AgentChatModel) -> ui.select:
    lang = model.lang
    if not model.environments:
        select = ui.select({"": t("no_environments", lang)}, value="", label=t("environment", lang))
        select.disable()
        return select.classes("min-w-[12rem]").props("dense dark outlined").mark("env-selector")
    select = ui.select(
        env_options(model.environments, model.active_env_id),
        label=t("environment", lang),
        on_change=lambda e: model.update_active_env(e.value),
    ).bind_value_from(model, "active_env_id")
    return select.classes("min-w-[12rem]").props("dense dark outlined").mark("env-selector")
