"""Every tool, one home per tool: ``app/tools/<family>/``.

A family's folder holds its tools as data (``spec.py``: args, risk, who may run it and on
which pages, the model's description, the card, the planner's phrases, en + ru; pure), its
implementations (``run.py``: the only I/O, with the hooks, undo inverses and preflights
beside their tool) and the views of its results (``view.py``). The offline planner's
knowledge of a family is ``app/planner/tools/<family>.py``.

* :mod:`.catalog` — ``FAMILIES`` (the one list) and ``TOOL_CATALOG`` (name → ToolSpec),
  pure: what policy, the MCP door and the planner read;
* :data:`TOOLS` — name → :class:`~app.tools.kit.Tool` (spec, function, hooks, view,
  inverse), joined by :mod:`.registry` from the families' ``run.py``; loaded on first use,
  so that importing the catalog (or this package) never imports I/O code;
* the kit: :mod:`.declare` (``family.spec(...)``, making policy's
  :class:`~app.policy.toolspec.ToolSpec`), :mod:`.args` (the argument models' parts),
  :mod:`.kit` (ToolDeps, ``@runs.implements``), :mod:`.undo_plan` (what an undo reads
  back).

Adding a tool to a family touches that family's folder, and its planner file.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.tools.registry import TOOLS


def __getattr__(name: str) -> Any:
    """:data:`TOOLS`, from :mod:`app.tools.registry` on first use."""
    if name == "TOOLS":
        from app.tools.registry import TOOLS

        return TOOLS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["TOOLS"]
