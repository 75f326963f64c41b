"""What the planner knows of one tool: a :class:`ToolKnowledge` entry, and the shapes
of its fields.

Each tool family's file (``app/planner/tools/<family>.py``) holds its tools' entries;
``app/planner/tools/__init__.py`` joins them into the registry the engine reads. An entry
says, as data and small functions:

* ``rows`` — when a request asks for the tool (:class:`Row`: a *strong* pattern that
  names the action, an optional *weak* one of generic words); every family's rows form
  one intent table, tried by ``order`` (lower first; :mod:`app.planner.intents`);
* ``read_args`` and ``required`` — the call's arguments read from the request, and those
  the planner asks for rather than guess (without a reader, the arguments are filled by
  their names from the tool's declaration: :mod:`app.planner.readers`);
* ``phrase`` — the call said five ways (:mod:`app.planner.slots`): its
  :class:`~app.planner.slots.CallText`, or a function that picks and fills one;
* ``report`` — one or two sentences about a successful result (without one: "Done: …");
* ``need`` — an object the call names that a lookup may identify first (:class:`Need`);
* ``lookup`` — the tool *is* a lookup: it finds objects of a kind for other tools
  (:class:`LookupRole`);
* ``follow_up`` — one more step after its own result when the request asked for more
  than that result shows (:class:`FollowUp`);
* ``capabilities`` — its result is the list of what the person can do: the answer lists
  those tools, and it gives no example request of its own;
* ``from_conversation`` — arguments read from the conversation rather than the request
  ("undo that": the latest change not undone yet), given the ones read so far.

Adding a tool's offline phrasing is one entry in its family's file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage

from app.planner.matches import Resolution
from app.planner.request import Request
from app.planner.results import Result
from app.planner.slots import CallText, Phrases
from app.planner.text import Lang

Reader = Callable[[Request], dict[str, Any]]
Report = Callable[[dict[str, Any], Result, Lang], str]
FromConversation = Callable[[dict[str, Any], list[BaseMessage]], dict[str, Any]]

# A word's ending (``\w*`` in a row) is read as at most this many characters: a stem the
# text repeats inside one long word ("удалудалудал…") would otherwise be read from each
# repetition to the end of the word, and a search would take quadratic time.
ENDING = 30


def no_args(req: Request) -> dict[str, Any]:
    """The reader of a tool that takes no arguments."""
    return {}


def _pattern(alternatives: list[str]) -> re.Pattern[str]:
    joined = "|".join(f"(?:{a})" for a in alternatives)
    return re.compile(joined.replace(r"\w*", rf"\w{{0,{ENDING}}}"), re.IGNORECASE)


@dataclass(frozen=True)
class Row:
    """One row of the intent table. Patterns run on the lower-cased request with its SQL
    statement replaced by the word ``sqlquery``. ``no_tool``: a request no tool serves
    (deleting a backup, say): the planner then says what it can do."""

    order: int
    strong: re.Pattern[str]
    weak: re.Pattern[str] | None = None
    no_tool: bool = False


def row(
    order: int, strong: list[str], weak: list[str] | None = None, *, no_tool: bool = False
) -> Row:
    """A row; each list holds alternatives (joined with ``|``)."""
    return Row(order, _pattern(strong), _pattern(weak) if weak else None, no_tool)


@dataclass(frozen=True)
class Need:
    """An object a call names that a lookup of ``kind`` may have to identify first: the
    argument it fills (``slot``), whether the call needs one, and the argument naming
    where the object lives."""

    kind: str
    slot: str
    required: bool = True
    env_arg: str = "env_id"


@dataclass(frozen=True)
class LookupRole:
    """A lookup tool: it finds objects of ``kind`` for the calls that need one.

    ``ref`` reads the name a request gives for the object (None: nothing to look up);
    ``args`` are the lookup call's arguments for that name and the environment the need
    names; ``resolve`` reads the lookup's result; ``ident`` is a found object's id (it
    fills the need's argument) and ``label`` names it in a sentence. ``in_selected_env``:
    without an environment, the lookup looks in the selected one (and says so)."""

    kind: str
    ref: Callable[[Request, dict[str, Any], Need], str | None]
    args: Callable[[str, Any], dict[str, Any]]
    resolve: Callable[[str, Result], Resolution]
    ident: Callable[[dict[str, Any]], str]
    label: Callable[[Any, Lang], str]
    in_selected_env: bool = False


@dataclass(frozen=True)
class FollowStep:
    """The step after a result: the same tool again with ``args``, or a ``question``."""

    args: dict[str, Any] | None = None
    question: str | None = None


@dataclass(frozen=True)
class FollowUp:
    """One more step after the tool's own result, when the request asks for more than
    the result shows (``wanted``): ``next`` reads the result and the call's arguments;
    its question is answered by a pick of kind ``pick`` (:mod:`app.planner.picks`)."""

    wanted: re.Pattern[str]
    next: Callable[[Result, dict[str, Any], Lang], FollowStep | None]
    pick: str


@dataclass(frozen=True)
class ToolKnowledge:
    """Everything the planner knows of one tool (see the module docstring)."""

    name: str
    rows: tuple[Row, ...] = ()
    read_args: Reader | None = None
    required: tuple[str, ...] = ()
    phrase: CallText | Phrases | None = None
    report: Report | None = None
    need: Need | None = None
    lookup: LookupRole | None = None
    follow_up: FollowUp | None = None
    capabilities: bool = False
    from_conversation: FromConversation | None = None
