"""The names a person knows a turn's objects by, for the confirmation card's line.

"Delete dashboard “Customer Health” (#2) in dev" rather than "Delete dashboard 2 in dev",
when the name is known *in that environment* (dashboard 2 of dev is not dashboard 2 of
prod):

* from the page's context: the same object type and id, in the page's environment;
* from a result earlier in the turn: the typed view a tool's result was presented as
  (``app.views``: a list of dashboards or datasets, a dashboard's health), kept with its
  message; its environment is the view's own;
* from earlier in the conversation: the names the guard learnt are kept with it (the
  state's ``names``, at most :data:`MAX_REMEMBERED`), so "Continue without this page's
  context" (a direct call, with the context left) still names the page's object.

Nothing is fetched for a name. A name is Superset data: one line of plain text, cut to
:data:`NAME_LIMIT` characters; it only ever fills the card's text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from langchain_core.messages import BaseMessage, ToolMessage

from app.context import UIContext
from app.policy import ToolSpec
from app.text import one_line

#: (object type, environment id, object id) -> the object's name
KnownNames = dict[tuple[str, str, str], str]
NAME_LIMIT = 80
MAX_REMEMBERED = 200
#: the id arguments a card line names an object by, and the object's type
ID_ARGS = {"dashboard_id": "dashboard", "dataset_id": "dataset"}


def _name(value: Any) -> str:
    text = one_line(value or "")
    return text if len(text) <= NAME_LIMIT else text[: NAME_LIMIT - 1].rstrip() + "…"


def page_names(ui: UIContext | None, page_env: str | None) -> KnownNames:
    """The page context's object, when it has a name (in the context's environment, else
    the page's)."""
    if ui is None or not (ui.objectType and ui.objectId and ui.objectName):
        return {}
    env = ui.envId or page_env
    name = _name(ui.objectName)
    return {(ui.objectType, env, str(ui.objectId)): name} if env and name else {}


def _view_names(view: Mapping[str, Any]) -> Iterable[tuple[tuple[str, str, str], str]]:
    env = view.get("env")
    if not isinstance(env, str) or not env:
        return
    if view.get("kind") == "linked_list":
        kind = view.get("object_type")
        items = view.get("items") or []
    elif view.get("kind") == "health":
        kind, items = "dashboard", [view.get("dashboard") or {}]
    else:
        return
    if kind not in ID_ARGS.values():
        return
    for item in items:
        if isinstance(item, Mapping) and item.get("id") not in (None, "") and item.get("title"):
            yield (str(kind), env, str(item["id"])), _name(item["title"])


def result_names(messages: Iterable[BaseMessage]) -> KnownNames:
    """The objects the turn's tool results named (later results win)."""
    known: KnownNames = {}
    for message in messages:
        artifact = message.artifact if isinstance(message, ToolMessage) else None
        view = artifact.get("view") if isinstance(artifact, Mapping) else None
        if isinstance(view, Mapping):
            known.update((key, name) for key, name in _view_names(view) if name)
    return known


def remembered(state: Mapping[str, Any] | None) -> KnownNames:
    """The names kept with the conversation (``"type|env|id": name``)."""
    known: KnownNames = {}
    for key, name in (state or {}).items():
        kind, _, rest = str(key).partition("|")
        env, _, object_id = rest.partition("|")
        if kind and env and object_id and isinstance(name, str):
            known[(kind, env, object_id)] = name
    return known


def to_state(known: KnownNames) -> dict[str, str]:
    """The names to keep with the conversation (the latest :data:`MAX_REMEMBERED`)."""
    kept = list(known.items())[-MAX_REMEMBERED:]
    return {f"{kind}|{env}|{object_id}": name for (kind, env, object_id), name in kept}


def learnt(
    state: Mapping[str, Any] | None,
    ui: UIContext | None,
    page_env: str | None,
    turn: Iterable[BaseMessage],
) -> KnownNames:
    """Every name known now: the conversation's, the page's, this turn's results' (the
    fresher source wins)."""
    return {**remembered(state), **page_names(ui, page_env), **result_names(turn)}


def object_env(args: Mapping[str, Any], env_id: str | None, page_env: str | None) -> str | None:
    """The environment a call's object ids live in: a copy between environments (a deploy:
    it has a ``target_env``) names its object in its source (``source_env``, else the
    page's environment); any other call in its own environment."""
    if "target_env" in args:
        source = args.get("source_env")
        return str(source) if source else page_env
    return env_id


def card_names(
    args: Mapping[str, Any], env_id: str | None, page_env: str | None, known: KnownNames
) -> dict[str, str]:
    """``{id argument: name}`` for the call's id arguments whose object is known."""
    env = object_env(args, env_id, page_env)
    if not env or not known:
        return {}
    names = {}
    for field, kind in ID_ARGS.items():
        value = args.get(field)
        if value in (None, ""):
            continue
        name = known.get((kind, env, str(value)))
        if name:
            names[field] = name
    return names


def named_line(
    spec: ToolSpec | None,
    call: Mapping[str, Any],
    ui: UIContext | None,
    lang: str,
    known: KnownNames,
) -> str | None:
    """The card's line for a pending call (its ``tool_args``, ``env_id`` and the page's
    ``selected_env``) naming its objects, or None when no name is known: the names
    ``known`` from the turn's results win over the page context's."""
    page_env = call.get("selected_env")
    args = call.get("tool_args") or {}
    names = card_names(args, call.get("env_id"), page_env, {**page_names(ui, page_env), **known})
    if not names or spec is None:
        return None
    return spec.describe(args, call.get("env_id"), lang, names)
