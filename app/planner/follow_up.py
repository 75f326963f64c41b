"""The obvious next step after a tool's own result, when the request asked for more than
that result shows (a tool's entry's ``follow_up``).

"Show the tables in database Sales" names no schema, so the database browse answers with
the database's schemas. That is a step, not the answer: with one schema the planner
lists its tables in the same turn; with several it asks which, the schemas listed as
plain lines (the buttons that pick one are offers the core puts on the events; the
answer "schema main in database examples" completes the request: :mod:`app.planner.picks`).
"""

from __future__ import annotations

from typing import Any

from app.planner.actions import doing
from app.planner.known import Known
from app.planner.tools import knowledge
from app.planner.turn import Turn


def next_step(turn: Turn, known: Known) -> tuple[str, dict[str, Any] | None] | None:
    """(what to say, the same tool's next call or None: a question) when the last step's
    tool has a follow-up the request asks for; None otherwise."""
    last = turn.last
    if last is None or last.result is None:
        return None
    follow_up = knowledge(last.tool).follow_up
    if follow_up is None or not follow_up.wanted.search(turn.text):
        return None
    step = follow_up.next(last.result, last.args, turn.lang)
    if step is None:
        return None
    if step.args is None:
        return step.question or "", None
    if turn.has_call(last.tool, step.args):
        return None
    return doing(last.tool, step.args, turn.lang, known.can(last.tool, turn.lang)), step.args
