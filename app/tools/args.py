"""What every tool's arguments are made of (pure pydantic): the base model, the field
helper and the argument types several families share.

* :class:`ToolArgs` — the base of every args model; :func:`arg` — a field with the English
  description the model reads and the Russian label and hint (:class:`Ru`) the
  confirmation card's edit form shows on the Russian page (kept in the field's
  ``metadata``, out of the model's JSON schema; ``tests/policy/test_catalog.py`` checks
  every tool's every field); :func:`optional` — a field the call may leave out (None);
  :func:`env_field`, :class:`EnvArgs`, :class:`NoArgs`.
* Names of database objects, checked because Superset writes some of them into SQL
  unescaped (SQL Lab's ``schema`` becomes ``set search_path = "<schema>"``):
  :data:`SqlIdentifier` — a schema, table or dataset name: a letter (any script) or
  ``_``, then letters, digits, ``_`` or ``$``; at most 128 characters. No quotes, dots,
  spaces, semicolons or control characters. :data:`DatabaseName` — a Superset database
  connection, by id or name: letters, digits, spaces and ``_ . - ( )``, starting with a
  letter or digit; at most 250 characters. A refusal is the args model's error
  (``sql_identifier`` / ``database_name``), named by its field.
* Free text a tool stores where a terminal shows it again (git keeps a commit message
  and a branch name as given, and ``git log`` in a terminal runs what they hold: ESC
  sequences, OSC-8 hyperlinks whose text hides their target, BEL), so control characters
  are refused (:func:`app.text.control_character`): :data:`PlainText` — a commit
  message: newline and tab are allowed, any other control character (C0, DEL, C1) is
  refused; :data:`OneLineText` — a branch name: no control character at all. A refusal
  is the args model's error (``control_characters``, ``control_characters_line``).

A refusal of any of these is a call's ``invalid_arguments`` refusal in a chat or over
MCP, a 422 on the API.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

from app.text import control_character


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


def optional(description: str, ru: Ru, **kwargs: Any) -> Any:
    """An argument the call may leave out: :func:`arg` with ``default=None``."""
    return arg(description, ru, default=None, **kwargs)


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
    return optional(description, Ru("Окружение", ru), max_length=64)


class NoArgs(ToolArgs):
    """The tool takes no arguments."""


class EnvArgs(ToolArgs):
    env_id: str | None = env_field()


# ---- names of database objects, and free text kept where a terminal shows it ---------
MAX_IDENTIFIER_CHARS = 128
MAX_DATABASE_NAME_CHARS = 250
TEXT_ALLOWED = "\n\t"

_IDENTIFIER = re.compile(r"[^\W\d][\w$]*")
_DATABASE_NAME = re.compile(r"[^\W_][\w .()-]*")


#: each refusal's code and its message (formatted with what the check found)
_SAID = {
    "sql_identifier": "must be a plain identifier: a letter or _, then letters, digits, _ or $ "
    "(at most {max_length} characters; no quotes, dots, spaces or semicolons)",
    "database_name": "must be a database id or name: letters, digits, spaces and _ . - ( ) "
    "(at most {max_length} characters; no quotes or semicolons)",
    "control_characters": "must not hold control characters (found {found}); only newline and "
    "tab are allowed",
    "control_characters_line": "must not hold control characters, newlines or tabs (found {found})",
}


def _checked(code: str, fault: Callable[[str], object | None], key: str) -> AfterValidator:
    """A validator refusing a value ``fault`` finds a fault in, as the args model's error
    ``code`` (its message formatted with ``key``: what ``fault`` said)."""

    def check(value: str) -> str:
        if (found := fault(value)) is not None:
            raise PydanticCustomError(code, _SAID[code], {key: found})
        return value

    return AfterValidator(check)


def _unless(pattern: re.Pattern[str], limit: int) -> Callable[[str], int | None]:
    """A fault finder: a value over ``limit`` characters, or not all of ``pattern`` (what
    it says: the limit)."""
    return lambda v: None if len(v) <= limit and pattern.fullmatch(v) else limit


def _text(value: str) -> str | None:
    return control_character(value, TEXT_ALLOWED)


_IDENTIFIER_RULE = _unless(_IDENTIFIER, MAX_IDENTIFIER_CHARS)
_DATABASE_RULE = _unless(_DATABASE_NAME, MAX_DATABASE_NAME_CHARS)
SqlIdentifier = Annotated[str, _checked("sql_identifier", _IDENTIFIER_RULE, "max_length")]
DatabaseName = Annotated[str, _checked("database_name", _DATABASE_RULE, "max_length")]
PlainText = Annotated[str, _checked("control_characters", _text, "found")]
OneLineText = Annotated[str, _checked("control_characters_line", control_character, "found")]
