"""The header's approvals count on every page of the shell: read once when the page is
built, then every :data:`REFRESH_S` seconds (a page timer), for a person who may approve."""

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


async def approvals_counter(core: AgentCore, principal: Principal) -> ApprovalsCount:
    """The count now (None when the person may not approve) and a timer that keeps it
    fresh; call it while the page is built."""
    counter = ApprovalsCount()

    async def refresh() -> None:
        try:
            counter.count = await queue.count_waiting(core, principal)
        except SsToolsError as exc:  # the count is a help; the page goes on without it
            log.warning("approvals count unavailable: %s", exc)

    await refresh()
    ui.timer(REFRESH_S, refresh)
    return counter
