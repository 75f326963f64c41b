"""The header's approvals count on every page of the shell, for a person who may
approve: read while the page is built (:func:`approvals_counter`), then kept fresh every
:data:`REFRESH_S` seconds by a page timer (:func:`keep_counting`, made last: a timer lets
NiceGUI send the page as soon as the browser connects)."""

from __future__ import annotations

import logging

from nicegui import ui

from app.agent.core import AgentCore
from app.agent.core import approvals as queue
from app.auth import Principal
from app.errors import SsToolsError
from app.screen.approvals_queue import ApprovalsCount

log = logging.getLogger("ss_tools.pages")
REFRESH_S = 10.0


async def _refresh(counter: ApprovalsCount, core: AgentCore, principal: Principal) -> None:
    try:
        counter.count = await queue.count_waiting(core, principal)
    except SsToolsError as exc:  # the count is a help; the page goes on without it
        log.warning("approvals count unavailable: %s", exc)


async def approvals_counter(core: AgentCore, principal: Principal) -> ApprovalsCount:
    """The count now (None when the person may not approve, or four-eyes is off)."""
    counter = ApprovalsCount()
    await _refresh(counter, core, principal)
    return counter


def keep_counting(counter: ApprovalsCount, core: AgentCore, principal: Principal) -> ui.timer:
    """The page timer that keeps the count fresh (call it at the end of the page)."""
    return ui.timer(REFRESH_S, lambda: _refresh(counter, core, principal))
