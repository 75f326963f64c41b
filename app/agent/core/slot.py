"""Where the doors find the process's agent core (phase A).

``create_app()`` builds one :class:`~app.agent.core.AgentCore` and installs it here;
``get_core()`` is the only accessor. Tests hand their own core straight to the function
they exercise (``agent_handler(..., core=core)``) or install it for a door they reach over
HTTP. Phase B passes the core from the composition root instead of through this slot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.errors import ConfigError

if TYPE_CHECKING:
    from app.agent.core.agent import AgentCore

_installed: list[AgentCore] = []  # at most one: the composition root's core


def get_core() -> AgentCore:
    """The installed agent core (``create_app()`` installs it)."""
    if not _installed:
        raise ConfigError("no agent core installed: create_app() builds and installs it")
    return _installed[0]


def install_core(core: AgentCore | None) -> AgentCore | None:
    """Install ``core`` (None: none) and return the one it replaces. A replaced core's
    checkpointer threads are stopped: its event loops are gone or no longer served."""
    previous = _installed[0] if _installed else None
    _installed.clear()
    if core is not None:
        _installed.append(core)
    if previous is not None and previous is not core:
        previous.stop()
    return previous
