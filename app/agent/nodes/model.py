"""The model node: one model call of a turn, or the turn's end before it.

Before asking, the turn's own messages say whether it must end instead
(``app.agent.turn_limits.turn_limit``: the step cap, a repeated call, a repeated
mistake; a call asked again after its result came ends with what that result holds, in
a ``reporter``'s words when the composition root handed one); a stopped turn ends
without asking. Otherwise the model is asked
(:func:`ask_model`) with the prompt of ``app.agent.prompt`` and the tools this call is
offered (``app.agent.tool_offer``: a ranker may narrow the allowed ones), each tool set
bound once (:class:`BoundModels`).

What it wrote is read leniently once (``app.agent.nodes.salvage``): a call written as JSON
in the text (fenced or not) becomes a tool call. A reply the server could not parse (HTTP
4xx/5xx: llama.cpp answers 500 when the model names a tool it does not know; when
streaming, it sends that error inside the opened stream), or JSON that is not a call, gets
one repair try: the same prompt plus a note of what went wrong and which tools exist
(every allowed tool, when the call was offered a narrowed list). A second failure, a model
server out of reach, or a model past its own time budget (a ``TimeoutError``: the offline
planner's ``planner_budget_s``) ends the turn with a plain sentence
(``app.agent.turn_limits.ended``) and an audit row.

What a call sends is kept within the model's input budget (:mod:`app.agent.budget`, in
:func:`ask_model`): older turns' results shortened, then old turns dropped; the stable
prefix and the current turn kept.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langgraph.runtime import Runtime

from app.agent.audit import AuditWriter
from app.agent.budget import InputBudget, within_budget
from app.agent.nodes.salvage import Unreadable, salvage
from app.agent.prompt import prompt_messages, tool_schema
from app.agent.state import (
    AgentContext,
    AgentState,
    Stopped,
    call_row,
    cancellable,
    is_stopped,
    stopped_reply,
)
from app.agent.tool_offer import Ranker, Wide, bind_options, offer_for
from app.agent.turn_limits import (
    PROBLEM_KEY,
    QUIET,
    Limit,
    Reporter,
    ended,
    result_of,
    turn_limit,
)
from app.cpu import off_loop
from app.policy import Policy
from app.settings import Settings

log = logging.getLogger(__name__)


class BoundModels:
    """``model`` with a tool set bound, made once per tool set (a turn offers the same
    few sets again and again) and again when the policy's catalog changes."""

    LIMIT = 64

    def __init__(self, model: BaseChatModel) -> None:
        self.model = model
        self._catalog: Mapping[str, Any] | None = None
        self._bound: dict[tuple[str, ...], tuple[Any, int]] = {}

    def bound(
        self, catalog: Mapping[str, Any], names: tuple[str, ...], **options: Any
    ) -> tuple[Any, int]:
        """The bound model and how many characters its tools add to every call;
        ``options``: ``bind_tools``' own (``tool_offer.bind_options``)."""
        if catalog is not self._catalog or len(self._bound) >= self.LIMIT:
            self._catalog, self._bound = catalog, {}
        key = (*names, *sorted(f"{k}={v}" for k, v in options.items()))
        found = self._bound.get(key)
        if found is None:
            schemas = [tool_schema(catalog[n]) for n in names if n in catalog]
            size = len(json.dumps(schemas, ensure_ascii=False))
            found = self._bound[key] = (self.model.bind_tools(schemas, **options), size)
        return found


def model_node(
    *,
    model: BaseChatModel,
    policy: Callable[[], Policy],
    settings: Settings,
    audit: AuditWriter,
    system: Any,
    ranker: Ranker | None,
    reporter: Reporter | None = None,
) -> Any:  # a Node; typed loosely for StateGraph.add_node
    """The graph's model node: the model's reply, or the turn's last word (audited when
    the model got something wrong, ended or repaired)."""
    models = BoundModels(model)
    top_k = settings.llm_tools_top_k

    async def node(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
        ctx = runtime.context
        problem: str | None = None
        limit = turn_limit(state["messages"])
        if is_stopped(ctx):  # a stopped turn ends here, without asking the model
            reply = stopped_reply(ctx)
        elif limit is not None:  # the turn ends here: a loop, a repeated mistake, the cap
            words = await _quiet_words(reporter, state["messages"], limit, ctx.lang)
            reply = ended(limit.problem, ctx.lang, limit.detail, limit.times, words)
            problem = f"{limit.problem}: {limit.detail} ({limit.times})"
        else:
            catalog, allowed, max_chars = (
                policy().catalog,
                ctx.allowed_tools,
                settings.model_input_max_chars,
            )
            offer = await offer_for(ranker, allowed, state["messages"], top_k)
            facts = replace(ctx.facts, other_tools=offer.others)
            prompt = prompt_messages(state["messages"], facts, ctx.uicontext, system)
            offered, chars = models.bound(catalog, offer.tools, **bind_options(offer))
            wide = None
            if offer.narrowed:  # the repair try of a narrowed call is offered every tool
                every, every_chars = models.bound(catalog, tuple(allowed))
                wide = Wide(every, allowed, InputBudget(max_chars, every_chars))
            budget = InputBudget(max_chars, chars)
            work = ask_model(offered, prompt, offer.tools, ctx.lang, budget, wide)
            try:
                reply, problem = await cancellable(ctx, work)
            except Stopped:
                reply = stopped_reply(ctx)
        if problem is not None:  # what the model got wrong, ended or repaired: audited
            ending = reply.response_metadata.get(PROBLEM_KEY)
            await audit.record(
                kind="failed" if ending else "retried",
                decision="error",
                reason=f"model: {problem}",
                **call_row(ctx, None, ctx.selected_env),
            )
        if state.get("direct"):  # the model answers: a chat turn again
            return {"messages": [reply], "direct": False}
        return {"messages": [reply]}  # (an unchanged channel is not written)

    return node


async def _quiet_words(
    reporter: Reporter | None, messages: Sequence[BaseMessage], limit: Limit, lang: str
) -> str | None:
    """A quiet ending's answer: what the repeated call's result holds, in the reporter's
    words (None: the plain sentence)."""
    found = result_of(messages, limit.detail) if limit.problem in QUIET else None
    if reporter is None or found is None:
        return None
    try:
        return await off_loop(reporter, limit.detail, *found, lang)
    except Exception as exc:  # its words are a nicety: the plain sentence still answers
        log.warning("no words for %s's result (%s: %s)", limit.detail, type(exc).__name__, exc)
        return None


def _repair_note(problem: str, tools: Sequence[str]) -> SystemMessage:
    names = ", ".join(tools) or "none"
    return SystemMessage(
        content=f"Your previous reply could not be read: {problem}. Answer again: either "
        f"plain text for the person, or one call of a tool from this list: {names}."
    )


def server_answer(exc: Exception) -> str | None:
    """What the model server answered, when ``exc`` is its answer (an HTTP error status,
    or an error it sent inside a stream it had already opened: llama.cpp streams its
    parse failure as ``data: {"error": {"code": 500, …}}`` after a 200, which the
    OpenAI client raises without a status); None when the server was not reached."""
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return f"the model server answered HTTP {status}: {exc}"[:500]
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and ("code" in body or "message" in body):
        said = body.get("message") or exc
        return f"the model server answered an error ({body.get('code')}): {said}"[:500]
    return None


async def ask_model(
    bound: Any,
    prompt: list[BaseMessage],
    tools: Sequence[str],
    lang: str,
    budget: InputBudget | None = None,
    wide: Wide | None = None,
) -> tuple[AIMessage, str | None]:
    """The model's reply to ``prompt`` sent within ``budget`` (read leniently, repaired
    once), and what went wrong on the way (for the audit row; None when nothing did).
    ``wide`` (``tool_offer.Wide``): the model bound with every allowed tool, their names
    and budget, for the repair try of a call that was offered a narrowed list (a model
    that asked for a tool outside it gets every tool)."""
    note: str | None = None
    for attempt in (1, 2):
        unread: list[BaseMessage] = []
        try:
            raw = await bound.ainvoke(within_budget(prompt, budget))
        except TimeoutError as exc:  # past the model's own time budget (the offline planner's)
            return ended("timed_out", lang), f"{type(exc).__name__}: {exc}"[:500]
        except Exception as exc:  # the model server: its error is the model's doing or not
            answered = server_answer(exc)
            if answered is None:
                return ended("unreachable", lang), f"{type(exc).__name__}: {exc}"[:500]
            note = answered
        else:
            try:
                return salvage(raw), note
            except Unreadable as exc:
                note, unread = str(exc), [raw]
        if attempt == 1:
            if wide is not None:
                bound, tools, budget = wide
            prompt = [*prompt, *unread, _repair_note(note, tools)]
    return ended("unreadable", lang), note
