"""The edit form's fields, built from a tool's args model (its JSON schema), and the
arguments read back from them. Plain Python: the form component renders an
:class:`EditField` per argument and binds its ``value`` and ``error``.

Kinds: ``text`` (``longtext`` for SQL and messages), ``integer``, ``number``, ``bool``,
``enum`` (a choice of the schema's values), ``env`` (a choice of the configured
environments, for ``env_id`` / ``target_env`` / ``source_env``), ``list`` (comma
separated) and ``json`` (anything else, as JSON text). Checking the values is the args
model's job (its own messages); here only what cannot even be read (a list, JSON).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

from nicegui import binding

ENV_FIELDS = frozenset({"env_id", "target_env", "source_env"})
LONG_TEXT = frozenset({"sql", "message", "reason"})
NONE_CHOICE = ""


@binding.bindable_dataclass
class EditField:
    name: str
    label: str
    kind: str
    required: bool = False
    choices: dict[str, str] = dataclasses.field(default_factory=dict)  # value -> label
    value: Any = None
    error: str = ""
    hint: str = ""


def _variants(prop: Mapping[str, Any]) -> tuple[Mapping[str, Any], bool]:
    """The property's schema without a ``null`` alternative, and whether it allowed one."""
    options = prop.get("anyOf")
    if not isinstance(options, list):
        return prop, prop.get("type") == "null"
    real = [o for o in options if o.get("type") != "null"]
    nullable = len(real) < len(options)
    return ({**prop, **real[0]} if len(real) == 1 else prop), nullable


def _kind(name: str, prop: Mapping[str, Any]) -> str:
    if name in ENV_FIELDS:
        return "env"
    if "enum" in prop:
        return "enum"
    kind = prop.get("type")
    if kind == "string":
        return "longtext" if name in LONG_TEXT else "text"
    if kind in ("integer", "number"):
        return str(kind)
    if kind == "boolean":
        return "bool"
    if kind == "array" and (prop.get("items") or {}).get("type") in ("string", "integer"):
        return "list"
    return "json"


def _shown(kind: str, value: Any) -> Any:
    """An argument's value as its field holds it."""
    if kind == "list":
        return ", ".join(str(v) for v in value or [])
    if kind == "json":
        return "" if value is None else json.dumps(value, ensure_ascii=False)
    if kind in ("env", "enum"):
        return NONE_CHOICE if value is None else str(value)
    if kind == "bool":
        return bool(value)
    return value if value is not None else ("" if kind in ("text", "longtext") else None)


def fields_from_schema(
    schema: Mapping[str, Any],
    args: Mapping[str, Any],
    environments: Sequence[tuple[str, str]] = (),
) -> list[EditField]:
    """One field per property of ``schema`` (an args model's JSON schema), filled with
    ``args``. ``environments``: (id, label) of the configured environments."""
    required = set(schema.get("required") or [])
    fields: list[EditField] = []
    for name, raw in (schema.get("properties") or {}).items():
        prop, nullable = _variants(raw)
        kind = _kind(name, prop)
        choices: dict[str, str] = {}
        if kind == "env":
            choices = dict(environments)
        elif kind == "enum":
            choices = {str(v): str(v) for v in prop["enum"]}
        value = args.get(name, raw.get("default"))
        if kind in ("env", "enum"):
            if value is not None and str(value) not in choices:
                choices[str(value)] = str(value)  # the shown value stays choosable
            if nullable or name not in required:
                choices = {NONE_CHOICE: "—", **choices}
        fields.append(
            EditField(
                name=name,
                label=str(raw.get("title") or name),
                kind=kind,
                required=name in required,
                choices=choices,
                value=_shown(kind, value),
                hint=str(raw.get("description") or ""),
            )
        )
    return fields


def _read(f: EditField) -> Any:
    """The field's value as an argument (None: empty). Raises ValueError when unreadable."""
    value = f.value
    if f.kind == "bool":
        return bool(value)
    if value is None:
        return None
    if isinstance(value, str) and not value.strip():  # empty: the args model says if missing
        return "" if f.required and f.kind in ("text", "longtext") else None
    if f.kind == "list":
        return [part.strip() for part in str(value).split(",") if part.strip()]
    if f.kind == "json":
        return json.loads(value)
    if f.kind == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def args_from_fields(fields: Sequence[EditField]) -> tuple[dict[str, Any], dict[str, str]]:
    """(the arguments, the fields that could not be read: name -> message). An empty
    optional field is left out (its default applies); a required one is sent empty so
    the args model says what is missing."""
    args: dict[str, Any] = {}
    unreadable: dict[str, str] = {}
    for f in fields:
        try:
            value = _read(f)
        except ValueError:
            unreadable[f.name] = "not valid JSON"
            continue
        if value is None and not f.required:
            continue
        args[f.name] = value
    return args, unreadable
