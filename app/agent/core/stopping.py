"""A person's Stop (``AgentCore.cancel``), from any door and on any replica, and its
honest answer (:class:`StopReport`).

What a Stop finds, and what it answers (``status``):

* a run of the conversation on this replica: its stop switch is thrown at once (the
  model call and reads are cancelled, writes go on to their end): ``stopped``, confirmed;
  a second Stop of a run that is still stopping (its writes) answers the same;
* a run on another replica (PostgreSQL): the request is written to the run's row at
  once and that replica is notified; its answer within the wait (3 s) is ``stopped``,
  confirmed. A replica too busy to answer in time honours the recorded request at its
  next heartbeat: ``stopping``, accepted (``stopped`` true, ``confirmed`` false);
* a run that ended on its own while the Stop was on its way: ``ended`` (never "nothing
  to stop" while the turn still runs, never "stopped" for a turn that finished by
  itself);
* no run: a pending confirmation is withdrawn (``withdrawn``), else ``not_running``.

Every stop of a running turn writes one ``turn_stopped`` audit row, by the replica asked.
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from app.agent.core.bookkeeping import settle, withdraw
from app.agent.core.checks import valid_conv_id
from app.agent.core.collaborators import StopParts
from app.agent.core.conversations import run_config
from app.agent.core.replica_runs import BUSY_WAIT_S
from app.agent.core.requests import DoorRequest, RequestRefused
from app.auth import Principal
from app.vocab import Channel

StopStatus = Literal["stopped", "stopping", "ended", "withdrawn", "not_running"]


@dataclass(frozen=True)
class StopReport:
    """What a stop did: ``stopped`` a running turn (``writes_in_flight``: the writes that
    go on, ``{call_id, tool_name}``), or ``withdrew`` a pending confirmation.
    ``confirmed``: the replica running the turn has thrown its stop switch; a stop
    ``stopped`` but not ``confirmed`` was *accepted*: recorded, and honoured at that
    replica's next step. ``status`` names the case (see the module)."""

    conv_id: str
    stopped: bool = False
    withdrawn: str | None = None
    writes_in_flight: list[dict[str, str]] = field(default_factory=list)
    confirmed: bool = False
    status: StopStatus = "not_running"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


async def cancel(
    core: StopParts, principal: Principal, conv_id: str, *, channel: Channel
) -> StopReport:
    """``AgentCore.cancel``: stop ``conv_id``'s running turn wherever it runs, or withdraw
    its pending confirmation; the owner only."""
    if not valid_conv_id(conv_id):
        raise RequestRefused(422, "invalid_conv_id", "not a conversation id")
    row = principal.audit_row(conv_id=conv_id, channel=channel)
    ended = False
    control = core.turns().active(conv_id)
    if control is not None and control.closing and not control.stopped:
        await asyncio.shield(control.finished)  # its turn just ended on its own
        control, ended = None, True
    if control is not None:
        await core.own(control.owner, principal, row)
        again = control.stopped  # asked again while it stops (its writes run on)
        flights = [{"call_id": w.call_id, "tool_name": w.tool_name} for w in control.stop()]
        if not again:
            args = {"writes_in_flight": flights} if flights else None
            await _audit(core, row, "stopped by the user", args)
        return _stopped(conv_id, flights, confirmed=True)
    elsewhere = await _cancel_elsewhere(core, principal, conv_id, row)
    if isinstance(elsewhere, StopReport):
        return elsewhere
    return await _withdraw(core, principal, conv_id, row, channel, ended=ended or elsewhere)


async def _cancel_elsewhere(
    core: StopParts, principal: Principal, conv_id: str, row: dict[str, Any]
) -> StopReport | bool:
    """Stop ``conv_id``'s run on another replica (PostgreSQL): the same answer and audit
    row as a local stop, confirmed or accepted. Else whether a run there ended while the
    stop was on its way (True) or none ran (False)."""
    shared = core.replica_runs()
    if shared is None:
        return False
    info = await shared.running(conv_id)
    if info is None:
        return False
    await core.own(info.user_id, principal, row)
    answer = await shared.request_stop(conv_id, by=principal.user_id)
    if answer is None or (answer.ended and not answer.stopped):
        return True  # it ended before the stop reached it
    flights = list(answer.writes_in_flight)
    # the replica that ran it, by its tag (``/api/health``), not its host and pid
    args: dict[str, Any] = {"replica": answer.replica.rpartition(":")[2]}
    if flights:
        args["writes_in_flight"] = flights
    confirmed = answer.stopped
    reason = "stopped by the user"
    if not confirmed:  # the row keeps the request: that replica's next heartbeat honours it
        reason = "stop requested by the user; its replica has not answered yet"
    await _audit(core, row, reason, args)
    return _stopped(conv_id, flights, confirmed=confirmed)


async def _withdraw(
    core: StopParts,
    principal: Principal,
    conv_id: str,
    row: dict[str, Any],
    channel: Channel,
    *,
    ended: bool,
) -> StopReport:
    """No run: withdraw the conversation's pending confirmation, if it has one."""
    nothing: StopStatus = "ended" if ended else "not_running"
    graph = await core.graph()
    state = await graph.aget_state(run_config(conv_id))
    await core.own((state.values or {}).get("owner"), principal, row)
    if not state.interrupts:
        return StopReport(conv_id, status=nothing)
    req = DoorRequest(principal=principal, conv_id=conv_id, channel=channel)
    control = await core.turns().begin(conv_id, principal.user_id)
    await core.claim(control, req, BUSY_WAIT_S)
    try:
        state = await graph.aget_state(run_config(conv_id))  # a run may have ended it
        withdrawn = None
        if state.interrupts:
            withdrawn = await withdraw(core, graph, state, req, control)
    finally:
        core.turns().end(control, lambda: settle(core, control, req))
    if withdrawn is None:
        return StopReport(conv_id, status=nothing)
    return StopReport(conv_id, withdrawn=withdrawn, status="withdrawn")


def _stopped(conv_id: str, flights: list[dict[str, str]], *, confirmed: bool) -> StopReport:
    status: StopStatus = "stopped" if confirmed else "stopping"
    return StopReport(
        conv_id, stopped=True, writes_in_flight=flights, confirmed=confirmed, status=status
    )


async def _audit(
    core: StopParts, row: dict[str, Any], reason: str, args: dict[str, Any] | None
) -> None:
    await core.audit.record(kind="turn_stopped", decision="cancel", reason=reason, args=args, **row)
    await core.audit.flush()
