"""What the planner says when it does not call a tool: the capabilities, a question for a
missing argument, and the final answer of a turn.

A final answer is one or two plain sentences about the turn's last tool result, in the
person's language (the tool's entry's ``report``, in its family's file; a tool without
one is "Done: <what it can do>." — the page shows the result itself; the capabilities
tool's result is the list of what the person can do here); a refusal,
cancellation or failure is explained by :mod:`app.planner.outcomes`. Lists and
tables are rendered by the page from the tool result, so an answer never repeats rows,
never shows internal paths, and formats numbers for the language. Any markdown list is
preceded by a blank line (a list glued to a line of text renders as one paragraph).
Nothing is said that the results do not hold.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from app.i18n import normalize_language
from app.planner.known import Known
from app.planner.markup import md_escape
from app.planner.outcomes import outcome_answer
from app.planner.phrases import ARG_NAMES, pick, say
from app.planner.results import Result, read_result
from app.planner.steps import Intent
from app.planner.text import Lang
from app.planner.tools import knowledge
from app.planner.turn import Turn
from app.policy import ToolSpec

MAX_TEXT = 300


def _tool_list(tools: list[str], lang: Lang, known: Known) -> list[str]:
    return [f"- {known.can(t, lang)} (`{t}`)" for t in tools]


def capabilities_answer(bound: Iterable[str] | None, lang: Lang, known: Known) -> str:
    """What the bound tools can do (catalog order), and up to three example requests."""
    tools = known.tools(None if bound is None else list(bound))
    if not tools:
        return say("capabilities_none", lang)
    lines = [say("capabilities_head", lang), "", *_tool_list(tools, lang, known)]
    examples = known.examples(tools, lang)
    if examples:
        lines += ["", say("examples", lang) + " " + "; ".join(f"«{e}»" for e in examples[:3])]
    return "\n".join(lines)


def clarification(tool: str, missing: list[str], lang: Lang, known: Known) -> str:
    what = ", ".join(pick(ARG_NAMES.get(m, (m, m)), lang) for m in missing)
    return say("missing", lang, action=known.can(tool, lang), what=what)


def _capabilities(result: Result, lang: Lang, known: Known) -> str:
    """What the capabilities tool found the person can do here, and how many more other
    roles or pages allow."""
    groups = result.get("groups")
    names = [
        str(t.get("name"))
        for tools in (groups.values() if isinstance(groups, dict) else [])
        for t in (tools if isinstance(tools, list) else [])
        if isinstance(t, dict)
    ]
    names = known.tools(names) or known.tools(None)
    lines = [say("capabilities_here", lang, count=len(names)), "", *_tool_list(names, lang, known)]
    excluded = result.total("excluded")
    if excluded:
        lines += ["", say("capabilities_excluded", lang, excluded=excluded)]
    return "\n".join(lines)


def _plain(action: str, result: Result, lang: Lang) -> str:
    """A result that is not JSON: its first sentences, escaped, else "Done: …"."""
    text = " ".join(result.message.split())
    if not text:
        return say("done", lang, action=action)
    cut = text if len(text) <= MAX_TEXT else text[:MAX_TEXT].rsplit(" ", 1)[0] + "…"
    return md_escape(cut)


def report(
    tool: str, args: dict[str, Any], result: Result, lang: Lang, known: Known | None = None
) -> str:
    """The sentence(s) about one successful result (``known``: the planner's tools)."""
    known = known or Known()
    entry = knowledge(tool)
    if not isinstance(result.data, dict | list):
        return _plain(known.can(tool, lang), result, lang)
    if entry.capabilities:
        return _capabilities(result, lang, known)
    if entry.report is None:  # a tool with no report of its own: the page shows its result
        return say("done", lang, action=known.can(tool, lang))
    return entry.report(args, result, lang)


def final_answer(turn: Turn, intent: Intent | None, lang: Lang, known: Known) -> str:
    """The answer about the turn's last tool result."""
    last = turn.last
    if last is None or last.result is None:
        return say("no_results", lang)
    result = last.result
    if result.code is None:
        return report(last.tool, last.args, result, lang, known)
    tool, args = last.tool, last.args
    if intent and intent.lookup and last.tool == intent.lookup.tool != intent.tool:
        tool, args = intent.tool, intent.unresolved()  # the refusal is about the request
    action = known.can(tool, lang)
    return outcome_answer(result, tool, args, lang, action)


class ResultReporter:
    """The planner's sentences about one successful result, for any model (handed to the
    core by the composition root): a turn that ends because the model asked again for a
    call whose result is in says what that result holds, as the offline planner would
    (``app.agent.turn_limits``). For the catalog ``catalog()`` returns, read on each call."""

    def __init__(self, catalog: Callable[[], Mapping[str, ToolSpec]]) -> None:
        self._catalog = catalog

    def __call__(self, tool: str, args: Mapping[str, Any], content: str, lang: str) -> str | None:
        """What ``tool``'s result ``content`` (its message to the model) holds, in ``lang``
        ("en" or "ru"); None when the result is not a success."""
        result = read_result(content)
        if result.code is not None:
            return None
        said = normalize_language(lang) or "en"
        return report(tool, dict(args), result, said, Known(self._catalog()))
