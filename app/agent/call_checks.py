"""What a tool's own hooks add to the guard's checks of one call (``app.agent.nodes.police``):

* :func:`exempt_from_maintenance` — whether the call runs during a maintenance window:
  its tool's (the spec's ``maintenance_exempt``), else this call's (the tool's ``exempt``
  hook: an undo that ends a window does, any other undo does not);
* :func:`stated_refusal` — a preflight that refused with a code (``app.errors.CallRefused``:
  an undo's ``changed_since``, ``not_undoable``, ``permission_denied``) as that typed
  refusal, and the audit row's kind and decision for it;
* :func:`card_of` — the card's data with a preflight's details: a preflight may say the
  call better than its arguments can (an undo names the change it undoes: ``description``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.errors import CallRefused
from app.facts import Refusal
from app.tools.kit import Tool


async def exempt_from_maintenance(tool: Tool, args: Any, deps: Callable[[], Any]) -> bool:
    """Whether this call of ``tool`` runs during a maintenance window (``deps()``: the
    call's dependencies, made only when the tool's hook needs them)."""
    if tool.spec.maintenance_exempt:
        return True
    return tool.exempt is not None and bool(await tool.exempt(args, deps()))


def stated_refusal(
    exc: CallRefused, tool_name: str, args: Mapping[str, Any], env_id: str | None
) -> tuple[Refusal, str, str]:
    """The refusal a tool's check stated, and its audit row's kind and decision."""
    refusal = Refusal.model_validate(
        {"code": exc.code, "tool_name": tool_name, "message": str(exc), "args": dict(args),
         "env_id": env_id, "errors": exc.errors, **exc.facts}
    )  # fmt: skip
    if exc.code == "permission_denied":
        return refusal, "permission_denied", "deny"
    return refusal, "failed", "error"


def card_of(metadata: dict[str, Any], details: Mapping[str, Any]) -> dict[str, Any]:
    """``metadata`` with the preflight's ``details`` (its ``description``, if it says one,
    as the card's line)."""
    details = dict(details)
    line = details.pop("description", None)
    if isinstance(line, str):
        metadata["description"] = line
    metadata["details"] = details
    return metadata
