"""Edit before approving, at the door: the checks ``prepare_resume`` makes on
edited ``args`` before it spends the confirmation, and the audit's record of both
argument sets.

The edited arguments must come with ``decision: "confirm"``, be a JSON object of a sane
size, and pass the tool's own args model (its messages, per field, are the refusal's
reason: a typo never spends a confirmation). Everything else — permission, environment
and tier, risk, maintenance, preflight — is the graph's recheck (``app.agent.nodes.confirm``),
which runs the guard's own per-call policy.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from app.i18n import catalog, said
from app.policy import Policy
from app.tools.args import ru_texts

MAX_ARGS_BYTES = 16_384
Problem = tuple[str, str]


def _field_messages(exc: ValidationError) -> str:
    """The args model's own messages, named by field (input values are never echoed)."""
    parts = []
    for err in exc.errors()[:8]:
        where = ".".join(str(p) for p in err["loc"]) or "args"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


def edit_shape(args: Any, decision: str) -> Problem | None:
    """The edit's shape alone (no tool known yet)."""
    if decision != "confirm":
        return ("args_need_confirm", "edited args come with decision 'confirm'")
    if not isinstance(args, Mapping) or not all(isinstance(k, str) for k in args):
        return ("invalid_args", "args must be a JSON object of argument names to values")
    try:
        size = len(json.dumps(dict(args), ensure_ascii=False).encode("utf-8"))
    except (TypeError, ValueError):
        return ("invalid_args", "args must be plain JSON values")
    if size > MAX_ARGS_BYTES:
        return ("args_too_large", f"args are over {MAX_ARGS_BYTES} bytes")
    return None


def edit_fits_tool(
    policy: Policy, tool_name: str | None, args: Mapping[str, Any]
) -> Problem | None:
    """The edited arguments against ``tool_name``'s args model."""
    spec = policy.spec(tool_name) if tool_name else None
    if spec is None:
        return None  # the confirmation check refuses it (unknown, foreign …)
    try:
        spec.args_model.model_validate(dict(args))
    except ValidationError as exc:
        return ("invalid_args", _field_messages(exc))
    return None


def args_schema(policy: Policy, tool_name: str, lang: str = "en") -> dict[str, Any]:
    """The JSON schema of a tool's args model (the page's edit form); {} when unknown.
    In Russian (``lang="ru"``) each field's ``title`` and ``description`` are its Russian
    label and hint (``app.tools.args.Ru``); the model's own schema stays English."""
    spec = policy.spec(tool_name)
    if spec is None:
        return {}
    schema = spec.args_model.model_json_schema()
    if lang != "ru":
        return schema
    props = schema.get("properties") or {}
    for name, info in spec.args_model.model_fields.items():
        ru = ru_texts(info)
        if ru is not None and name in props:
            props[name] = {**props[name], "title": ru.label, "description": ru.hint}
    return schema


def args_messages(
    policy: Policy, tool_name: str, args: Mapping[str, Any], lang: str = "en"
) -> dict[str, str]:
    """The args model's own messages for ``args``, one per top-level field ({}: valid);
    in Russian from the catalog's ``[arg_errors]`` (by pydantic's error type)."""
    spec = policy.spec(tool_name)
    if spec is None:
        return {"args": f"unknown tool '{tool_name}'"}
    try:
        spec.args_model.model_validate(dict(args))
    except ValidationError as exc:
        out: dict[str, str] = {}
        for err in exc.errors():
            out.setdefault(str(err["loc"][0]) if err["loc"] else "args", _message(err, lang))
        return out
    return {}


def _message(err: Any, lang: str) -> str:
    pair = catalog("arg_errors").get(err["type"])
    if lang != "ru" or pair is None:
        return str(err["msg"])
    try:
        return said(pair, lang, **(err.get("ctx") or {}))
    except (KeyError, IndexError):  # a context the catalog's text does not name
        return str(err["msg"])


def shown_and_edited(values: Mapping[str, Any], req: Any) -> dict[str, Any] | None:
    """The audit's ``args`` of a confirmation answered with an edit: both sets."""
    if req.args is None:
        return None
    shown = next(
        (
            p.get("tool_args")
            for p in values.get("pending") or []
            if p.get("confirmation_id") == req.confirmation_id
        ),
        None,
    )
    return {"shown": shown, "edited": req.args}
