"""The base of every tool's arguments (pure pydantic) and the texts its fields share.

Every field of an args model is :func:`arg`: the English description the model reads,
and the Russian label and hint (:class:`Ru`) the confirmation card's edit form shows on
the Russian page (kept in the field's ``metadata``, out of the model's JSON schema;
``tests/policy/test_catalog.py`` checks every tool's every field).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


@dataclass(frozen=True)
class Ru:
    """An argument's label and hint on the Russian page (the confirmation card's edit
    form). The model reads the English ``description`` only: this stays out of the JSON
    schema (``app.agent.core.edits.args_schema`` puts it in for the form)."""

    label: str
    hint: str


def arg(description: str, ru: Ru, **kwargs: Any) -> Any:
    """An args model's field: pydantic's ``Field(description=..., **kwargs)`` that also
    carries its :class:`Ru` texts (kept in the field's ``metadata``, beside its
    constraints)."""
    info = Field(description=description, **kwargs)
    info.metadata.append(ru)
    return info


def ru_texts(info: Any) -> Ru | None:
    """The :class:`Ru` texts of a model field (``model_fields[name]``), if it has them."""
    return next((m for m in info.metadata if isinstance(m, Ru)), None)


ENV_ID = "Environment id; omit for the selected one."
DASHBOARD_ID = "Dashboard id (a number) or its slug."
RU_DASHBOARD = Ru("Дашборд", "Id дашборда (число, например 42) или его slug.")


class ToolArgs(BaseModel):
    """Base of every tool's arguments. Every field has a description (the LLM reads it)
    and its Russian label and hint (:func:`arg`); numbers are coerced to strings (models
    often send ids as integers); unknown arguments are refused. ``env_id`` is always
    optional: None means "the environment selected in the UI"."""

    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)


def env_field(
    description: str = ENV_ID,
    ru: str = "Id окружения Superset (например, dev или prod-eu); пусто — выбранное окружение.",
) -> Any:
    """The ``env_id`` field every environment-bound tool has."""
    return arg(description, Ru("Окружение", ru), default=None, max_length=64)


class NoArgs(ToolArgs):
    """The tool takes no arguments."""


class EnvArgs(ToolArgs):
    env_id: str | None = env_field()
