"""The ways on the core offers a person, made from facts, for any model (``app.events.Offer``):

* :func:`without_context` — the guard refused a call because the page's context leaves
  the tool out: the same call with the object and the environment spelled out, made after
  leaving the context;
* :func:`check_status` — a write timed out: ask for its task by id (a direct call of the
  task status tool), leaving a page context that filters the tool out;
* :func:`choices` — a lookup found several candidates (or none) and the model answered:
  each candidate is a request that picks it (the tool's ``choices`` hook says how);
* :func:`undo` — a write that can be undone: the undo tool's call that undoes it, until
  its undo expires (made by the tool node: ``app.agent.undo``).
* :func:`link_account` — a call needs the person's own Superset account on a person
  environment, and there is no working link: connect it (a form, never the chat).

Words are the catalog's (``app/strings.toml``), in the turn's language. Which tool checks
a task's status, and which undoes a change, is what the specs say they serve
(``ToolSpec.serves``), never a name written here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.events import Offer, OfferedCall
from app.i18n import t
from app.policy import Policy
from app.policy.toolspec import Serves, ToolSpec, serving
from app.tools.catalog import TOOL_CATALOG

MAX_CHOICES = 8


def serving_tool(policy: Policy, need: Serves) -> ToolSpec:
    """The tool of ``policy``'s catalog that serves ``need`` (else the product's)."""
    spec = serving(policy.catalog, need) or serving(TOOL_CATALOG, need)
    if spec is None:
        raise LookupError(f"no tool serves {need!r}")
    return spec


def without_context(
    policy: Policy,
    tool_name: str,
    args: Mapping[str, Any],
    env_id: str | None,
    lang: str,
    names: Mapping[str, str] | None = None,
) -> Offer:
    """``names``: the objects' names the page knows (the call's words name them)."""
    spec = policy.spec(tool_name)
    said = spec.describe(args, env_id, lang, names) if spec is not None else tool_name
    return Offer(
        kind="without_context",
        label=t("continue_without_context", lang),
        request=said,
        call=OfferedCall(tool_name=tool_name, args=dict(args)),
        clear_context=True,
    )


def check_status(
    policy: Policy, task_id: str | None, tool_name: str, object_type: str | None, lang: str
) -> Offer:
    """"Check status" of a write whose outcome is unknown: its task by id when it has one,
    else the person's recent tasks (the task status tool without an id)."""
    spec = serving_tool(policy, "task_status")
    fits = object_type is None or object_type in spec.affinity
    if task_id:
        request = t("check_status_task", lang, task_id=task_id)
        args: dict[str, Any] = {"task_id": task_id}
    else:
        request = t("check_status_prompt", lang, tool=tool_name, status_tool=spec.name)
        args = {}
    return Offer(
        kind="check_status",
        label=t("check_status", lang),
        request=request,
        call=OfferedCall(tool_name=spec.name, args=args),
        clear_context=not fits,
    )


def choices(picks: list[tuple[str, str]]) -> list[Offer]:
    """A lookup's candidates as choice offers: (label, the request that picks it)."""
    return [Offer(kind="choice", label=label, request=request) for label, request in picks][
        :MAX_CHOICES
    ]


def undo(
    policy: Policy, undo_id: str, description: str, expires_at: str, object_type: str | None,
    lang: str,
) -> Offer:  # fmt: skip
    """The "Undo" of a write that can be undone: the undo tool's call with its id, leaving
    a page context that filters the tool out (it fits no page's context)."""
    spec = serving_tool(policy, "undo")
    fits = object_type is None or object_type in spec.affinity
    return Offer(
        kind="undo",
        label=t("undo", lang),
        request=t("undo_request", lang, what=description),
        call=OfferedCall(tool_name=spec.name, args={"undo_id": undo_id}),
        clear_context=not fits,
        expires_at=expires_at,
    )


def link_account(env_id: str, lang: str) -> Offer:
    """"Connect your Superset account" on ``env_id`` (no call: a door opens its form)."""
    return Offer(
        kind="link_account",
        label=t("link_account", lang, env=env_id),
        request=t("link_account_request", lang, env=env_id),
        env_id=env_id,
    )
