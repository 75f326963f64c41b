"""A person's pick among the candidates of the planner's question.

When a name matches several objects the planner asks which one, in words; the buttons
that pick one are offers the core puts on the events, and each sends a short message:

==========  ==========================================  ========================================
kind        English                                     Russian
==========  ==========================================  ========================================
dashboard   ``dashboard 7 in dev`` (``dashboard 7``)    ``дашборд 7 в dev`` (``дашборд 7``)
backup      ``backup abf01234`` (an id's first 8)       ``бэкап abf01234``
schema      ``schema main in database examples``        ``схема main в базе examples``
==========  ==========================================  ========================================

(The fourth, ``list all dashboards in dev`` / ``покажи все дашборды в dev``, after a
search that found nothing, is a request of its own.)

A pick completes the request the question was about (:func:`pick_intent`): the picked
dashboard fills the intended call's dashboard argument (and where it lives, its
environment); a picked backup prefix is looked up again; a picked schema answers a
tool's follow-up question (its entry's ``follow_up``: the schema whose tables to list).
A dashboard or backup pick with no question before it names nothing to do: it is never
a search, nor a backup of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from app.planner.steps import Intent
from app.planner.text import EnvResolver
from app.planner.tools import knowledge

# blanks, an optional "." or "!", blanks, the end (blanks taken whole: read one way)
_END = r"\s*+(?:[.!]\s*+)?$"
_DASHBOARD = re.compile(
    r"^\s*(?:dashboard|дашборд)\s+[#№]?(\d+)(?:\s+(?:in|в|на)\s+([A-Za-z0-9_.-]+))?" + _END,
    re.IGNORECASE,
)
# an id's first characters: four or more, with a digit or all hex ("backup prod" is a request)
_BACKUP = re.compile(
    r"^\s*(?:backup|бэкап)\s+((?=[\w.:-]*\d|[0-9a-f]{4,}\b)[0-9A-Za-z][\w.:-]{3,}?)…?" + _END,
    re.IGNORECASE,
)
# the database: the shortest run of whole words (blanks, then a non-blank) before the end
_SCHEMA = re.compile(
    r"^\s*(?:schema|схема)\s+(\S+)\s+(?:in\s+database|в\s+базе)\s++((?:[^\S\n]*+\S)+?)" + _END,
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Pick:
    kind: Literal["dashboard", "backup", "schema"]
    ref: str  # the dashboard id, the backup id's first characters, the schema
    env: str | None = None  # dashboard: the environment it lives in
    database: str | None = None  # schema: its database


def read_pick(text: str, envs: EnvResolver) -> Pick | None:
    """The pick ``text`` is, when it has one of the shapes above; None otherwise."""
    if m := _DASHBOARD.match(text):
        env = envs.resolve_word(m.group(2)) if m.group(2) else None
        return Pick("dashboard", m.group(1), env=env)
    if m := _BACKUP.match(text):
        return Pick("backup", m.group(1))
    if m := _SCHEMA.match(text):
        return Pick("schema", m.group(1), database=m.group(2))
    return None


def pick_intent(intent: Intent | None, pick: Pick) -> Intent | None:
    """The earlier request's ``intent`` completed by ``pick``; None when the pick does
    not answer it (then the pick is read like any other answer)."""
    if intent is None:
        return None
    lookup = intent.lookup
    if pick.kind == "dashboard" and lookup is not None and lookup.kind == "dashboard":
        args = intent.filled(pick.ref)
        if pick.env:
            args[lookup.env_arg] = pick.env
        return Intent(intent.tool, args, None, intent.missing)
    if pick.kind == "backup" and lookup is not None and lookup.kind == "backup":
        again = replace(lookup, ref=pick.ref)
        return Intent(intent.tool, {**intent.args, lookup.slot: pick.ref}, again, intent.missing)
    follow_up = knowledge(intent.tool).follow_up
    if pick.kind == "schema" and follow_up is not None and follow_up.pick == pick.kind:
        args = {**intent.args, "database": pick.database, "schema": pick.ref}
        return Intent(intent.tool, args, None, [])
    return None
