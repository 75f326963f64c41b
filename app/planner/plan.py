"""The planner's decision for one model call: a tool call, a question or an answer.

The graph loops model → tools → model, so the planner is called again after every tool
result of a turn and plans *in steps*, re-reading the person's request each time:

* the person just spoke → recognise the intent (``steps.intent_for``); when an object is
  named rather than identified, look it up first (a dashboard by title, a backup by the
  first characters of its id);
  ask for a missing required argument of a bound tool; list the capabilities when
  nothing matches. A tool outside the bound set is proposed as is (with the name
  unresolved), so the server's guard says why it is refused;
* a lookup answered → with one match, call the intended tool in the same turn and say
  so ("Found “Sales demo” (#7) in dev. Checking the health of dashboard 7 in dev…");
  with several, ask which one, in words, the candidates listed as plain lines (the
  buttons that pick one are offers the core puts on the events); with none, say so;
* a result that shows less than the request asked for (a database's schemas when its
  tables were asked for) → one more step, or a question (:mod:`app.planner.follow_up`);
* the person answered that question → the answer completes the earlier request
  (:func:`_intent`): a pick the core's choice buttons send ("dashboard 7 in dev",
  "backup abf01234", "schema main in database examples": :mod:`app.planner.picks`), or
  a bare "7" or "prod" read together with the request;
* anything else answered → the final answer (``answers``). A refusal, a failure or a
  cancellation is never retried in the same turn.

The language (Russian when the person's latest message has Cyrillic) holds for the turn.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from app.planner.actions import doing
from app.planner.answers import capabilities_answer, clarification, final_answer
from app.planner.context import TurnContext, turn_context
from app.planner.follow_up import next_step
from app.planner.intents import matching
from app.planner.known import Known
from app.planner.labels import env_in
from app.planner.markup import quote
from app.planner.phrases import say
from app.planner.picks import pick_intent, read_pick
from app.planner.request import Request
from app.planner.results import Result
from app.planner.steps import Intent, Lookup, Resolution, intent_for, match_id, resolve
from app.planner.text import EnvResolver, Lang
from app.planner.tools import knowledge
from app.planner.turn import Turn, read_turn

MAX_STEPS = 6  # calls in one turn; past this the planner answers with what it has


@dataclass(frozen=True)
class Reply:
    content: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


def _call(turn: Turn, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    payload = json.dumps(args, sort_keys=True, default=str)
    seed = f"{turn.size}|{turn.text}|{tool}|{payload}"
    ident = "call_" + hashlib.sha1(seed.encode()).hexdigest()[:16]
    return {"name": tool, "args": args, "id": ident, "type": "tool_call"}


def _asks(req: Request, known: Known) -> bool:
    """Does the request name something to do (a strong intent row, or a declared phrase)?"""
    text = req.prefix.lower()
    return bool(matching(text)[0] or known.heard(text))


def _request(turn: Turn, ctx: TurnContext, known: Known) -> Request:
    """The person's request; an answer to the planner's question completes the earlier one."""
    req = Request.build(turn.text, ctx)
    if turn.earlier and not _asks(req, known):
        combined = Request.build(f"{turn.earlier}\n{turn.text}", ctx)
        if _asks(combined, known):
            return combined
    return req


def _intent(
    turn: Turn, ctx: TurnContext, bound: Collection[str] | None, known: Known
) -> Intent | None:
    """What the turn asks for: a pick completes the earlier request (a dashboard or
    backup pick with no question before it asks for nothing), any other answer to the
    planner's question is read together with that request, else the message alone."""
    if not turn.text:
        return None
    pick = read_pick(turn.text, EnvResolver(ctx.environments))
    if pick is not None and turn.earlier:
        earlier = intent_for(Request.build(turn.earlier, ctx), bound, known)
        if (picked := pick_intent(earlier, pick)) is not None:
            return picked
    req = _request(turn, ctx, known)
    if pick is not None and pick.kind != "schema" and req.text == turn.text:
        return None
    return intent_for(req, bound, known)


def _looking(lookup: Lookup, ctx: TurnContext, lang: Lang) -> str:
    env = lookup.args.get("env_id")
    if lookup.role.in_selected_env:
        env = env or ctx.selected_env
    return say(f"looking_{lookup.kind}", lang, name=quote(lookup.ref, lang), env=env_in(env, lang))


def _first_step(
    turn: Turn,
    intent: Intent | None,
    ctx: TurnContext,
    bound: Collection[str] | None,
    known: Known,
) -> Reply:
    lang = turn.lang
    if intent is None:
        return Reply(capabilities_answer(bound, lang, known))
    is_bound = bound is None or intent.tool in bound
    if intent.missing and is_bound:
        return Reply(clarification(intent.tool, intent.missing, lang, known))
    if intent.lookup and is_bound:
        lookup = intent.lookup
        return Reply(_looking(lookup, ctx, lang), [_call(turn, lookup.tool, lookup.args)])
    args = intent.unresolved()
    text = doing(intent.tool, args, lang, known.can(intent.tool, lang))
    return Reply(text, [_call(turn, intent.tool, args)])


def _ask(intent: Intent, found: Resolution, result: Result, lang: Lang) -> str:
    """Several matches (or none): the question, with the candidates as plain lines."""
    lookup = intent.lookup
    assert lookup is not None
    name = quote(lookup.ref, lang)
    env = env_in(result.get("env") or result.get("env_id") or lookup.args.get("env_id"), lang)
    kind = lookup.kind
    if not found.candidates:
        return say(f"no_{kind}", lang, name=name, env=env)
    listed = "\n".join(f"- {lookup.role.label(c, lang)}" for c in found.candidates)
    if found.by_position:
        head = say("nth_backup", lang, name=name, env=env, n=lookup.ref.strip("…."))
    else:
        head = say(f"which_{kind}", lang, name=name, env=env, count=found.total)
        if found.total > len(found.candidates):
            head += " " + say("shown_of", lang, shown=len(found.candidates))
    return f"{head}\n\n{listed}"


def _next_step(turn: Turn, intent: Intent | None, known: Known) -> Reply:
    lang, last = turn.lang, turn.last
    if last is None or last.result is None or last.result.code is not None:
        return Reply(final_answer(turn, intent, lang, known))
    deeper = next_step(turn, known)  # more asked for than the result shows: one more step
    if deeper is not None and len(turn.steps) < MAX_STEPS:
        text, args = deeper
        return Reply(text, [_call(turn, last.tool, args)] if args is not None else [])
    done = intent is None or turn.called(intent.tool) or len(turn.steps) >= MAX_STEPS
    lookup = None if done or intent is None else intent.lookup
    if intent is None or lookup is None or last.tool != lookup.tool:
        return Reply(final_answer(turn, intent, lang, known))
    found = resolve(lookup, last.result)
    if found.match is None:
        return Reply(_ask(intent, found, last.result, lang))
    args = intent.filled(match_id(lookup, found.match))
    env = env_in(last.result.get("env") or lookup.args.get("env_id"), lang)
    head = say(f"found_{lookup.kind}", lang, label=lookup.role.label(found.match, lang), env=env)
    text = f"{head} {doing(intent.tool, args, lang, known.can(intent.tool, lang))}"
    return Reply(text, [_call(turn, intent.tool, args)])


def from_conversation(intent: Intent | None, messages: list[BaseMessage]) -> Intent | None:
    """``intent`` with the arguments its tool reads from the conversation rather than the
    request (its entry's ``from_conversation``); what they fill is no longer missing."""
    read = knowledge(intent.tool).from_conversation if intent is not None else None
    if intent is None or read is None:
        return intent
    found = read(intent.args, messages)
    if not found:
        return intent
    missing = [m for m in intent.missing if m not in found]
    return dataclasses.replace(intent, args={**intent.args, **found}, missing=missing)


def plan_reply(
    messages: list[BaseMessage], bound: Collection[str] | None, known: Known | None = None
) -> Reply:
    """The planner's reply to a conversation (see the module docstring). The turn's
    facts and page are read from the prompt (:func:`turn_context`); ``known``: the tools
    the planner knows (default: the bound tools, by name only)."""
    ctx = turn_context(messages)
    known = known or Known()
    said = [m for m in messages if not isinstance(m, SystemMessage)]  # prompt, facts, notes
    turn = dataclasses.replace(read_turn(said), said_in=ctx.lang)
    intent = from_conversation(_intent(turn, ctx, bound, known), said)  # "undo that"
    if turn.ended_with_tool:
        return _next_step(turn, intent, known)
    if said and isinstance(said[-1], HumanMessage):
        return _first_step(turn, intent, ctx, bound, known)
    return Reply(capabilities_answer(bound, turn.lang, known))
