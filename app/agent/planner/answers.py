"""Texts the planner answers with: capabilities, clarifications and final answers.

A final answer is written only from the tool results in the conversation: JSON is
summarised (counts, the first items with ids and titles, scalar fields such as verdicts
and reasons); a ``CANCELLED:``/``ERROR:``/``PERMISSION_DENIED:``/``NOT_AVAILABLE:`` result
is explained plainly with a next step. Nothing is added that the results do not hold.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from app.agent.planner.phrases import (
    ARG_NAMES,
    CAPABILITIES,
    DEFAULT_NEXT_STEP,
    EXAMPLES,
    NEXT_STEPS,
    pick,
    say,
)
from app.agent.planner.text import Lang
from app.text import inert

TOP_ITEMS = 5
MAX_FIELDS = 10
MAX_TEXT = 1500
_ID_KEYS = ("id", "dashboard_id", "backup_id", "task_id", "uuid", "env_id")
_TITLE_KEYS = (
    "dashboard_title",
    "title",
    "name",
    "table_name",
    "database_name",
    "slug",
    "role",
    "message",
)
# CANCELLED:, ERROR:, MAINTENANCE: or a guard code such as PERMISSION_DENIED:, NOT_AVAILABLE:
_OUTCOME = re.compile(r"\s*(CANCELLED|ERROR|MAINTENANCE|[A-Z]+_[A-Z_]+):")
_DETAIL_KEYS = ("status", "state", "verdict", "reason", "env_id", "schema", "created_at", "url")
MAX_DESCRIPTION = 100


def capabilities_answer(bound: Iterable[str] | None, lang: Lang) -> str:
    tools = [t for t in CAPABILITIES if bound is None or t in set(bound)]
    if not tools:
        return say("capabilities_none", lang)
    lines = [say("capabilities_head", lang)]
    lines += [f"- {pick(CAPABILITIES[t], lang)} (`{t}`)" for t in tools]
    examples = [pick(EXAMPLES[t], lang) for t in tools if t in EXAMPLES]
    if examples:
        lines += ["", say("examples", lang) + " " + "; ".join(f"«{e}»" for e in examples[:3])]
    return "\n".join(lines)


def clarification(tool: str, missing: list[str], lang: Lang) -> str:
    what = ", ".join(pick(ARG_NAMES.get(m, (m, m)), lang) for m in missing)
    return say("missing", lang, action=pick(CAPABILITIES[tool], lang), what=what)


# --- final answers ------------------------------------------------------------------------
def _text(message: BaseMessage) -> str:
    return message.text if isinstance(message.text, str) else str(message.content)


def _calls_by_id(messages: list[BaseMessage]) -> dict[str, dict[str, Any]]:
    calls: dict[str, dict[str, Any]] = {}
    for message in messages:
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                calls[call.get("id") or ""] = call
    return calls


def trailing_tool_messages(messages: list[BaseMessage]) -> list[ToolMessage]:
    out: list[ToolMessage] = []
    for message in reversed(messages):
        if not isinstance(message, ToolMessage):
            break
        out.append(message)
    return list(reversed(out))


def _label(item: Any) -> str:
    if not isinstance(item, dict):
        return str(item)
    ident = next((item[k] for k in _ID_KEYS if item.get(k) not in (None, "")), None)
    title = next((item[k] for k in _TITLE_KEYS if item.get(k) not in (None, "")), None)
    details = [
        f"{k}: {_scalar(item[k])}" for k in _DETAIL_KEYS if item.get(k) not in (None, "", ident)
    ]
    head = " ".join(
        p
        for p in (f"#{md_escape(str(ident))}" if ident is not None else "", md_escape(title or ""))
        if p
    )
    if not head:
        head = ", ".join(f"{k}: {_scalar(v)}" for k, v in list(item.items())[:4])
    text = head + (f" ({', '.join(details[:3])})" if details else "")
    description = str(item.get("description") or "").strip()
    if description and description != title:
        cut = description[:MAX_DESCRIPTION] + ("…" if len(description) > MAX_DESCRIPTION else "")
        text += f" — {md_escape(cut)}"
    return text


def md_escape(text: object) -> str:
    """Superset data is shown as text, never as markdown or HTML: no emphasis, no raw
    tags, no images, no links (``app.text.inert``, issue 9 item 9)."""
    return inert(text)


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict | list):
        return md_escape(json.dumps(value, ensure_ascii=False)[:200])
    return md_escape(str(value))


def _items(items: list[Any], lang: Lang, indent: str = "") -> list[str]:
    lines = [f"{indent}- {_label(item)}" for item in items[:TOP_ITEMS]]
    if len(items) > TOP_ITEMS:
        lines.append(indent + say("more", lang, count=len(items) - TOP_ITEMS))
    return lines


def _render_list(items: list[Any], lang: Lang) -> list[str]:
    if not items:
        return [say("empty", lang)]
    return [say("found_items", lang, count=len(items)), *_items(items, lang)]


def _render_dict(data: dict[str, Any], lang: Lang, indent: str = "") -> list[str]:
    """Scalar fields first, then lists (count + first items) and nested objects (one level
    deeper, then flattened to ``key: value`` text)."""
    lines: list[str] = []
    scalars = [(k, v) for k, v in data.items() if not isinstance(v, dict | list)]
    for key, value in scalars[:MAX_FIELDS]:
        lines.append(f"{indent}- **{key}**: {_scalar(value)}")
    for key, value in data.items():
        if isinstance(value, list):
            head = f"{indent}- **{key}** ({len(value)}):" if value else f"{indent}- **{key}**: —"
            lines += [head, *_items(value, lang, indent=indent + "  ")]
        elif (
            isinstance(value, dict)
            and not indent
            and any(isinstance(v, dict | list) for v in value.values())
        ):
            lines += [f"- **{key}**:", *_render_dict(value, lang, indent="  ")]
        elif isinstance(value, dict):
            inner = ", ".join(f"{k}: {_scalar(v)}" for k, v in list(value.items())[:MAX_FIELDS])
            lines.append(f"{indent}- **{key}**: {inner or '—'}")
    return lines or [indent + say("empty", lang)]


def _next_step(message: str, lang: Lang) -> str:
    for pattern, step in NEXT_STEPS:
        if re.search(pattern, message, re.IGNORECASE):
            return pick(step, lang)
    return pick(DEFAULT_NEXT_STEP, lang)


def _render_outcome(tool: str, code: str, rest: str, lang: Lang) -> list[str]:
    """A refused, cancelled or failed call (``CODE: message`` from the guard/executor)."""
    raw, rest = rest, md_escape(rest)  # error texts may quote Superset: shown inert
    if code == "CANCELLED":
        lines = [say("cancelled", lang)]
        return lines + ([say("cancel_reason", lang, reason=rest)] if rest else [])
    if code == "PERMISSION_DENIED":
        return [say("denied", lang, tool=tool, reason=rest or "—"), say("denied_next", lang)]
    if code in ("NOT_AVAILABLE", "UNKNOWN_TOOL"):
        return [
            say("not_available", lang, tool=tool, reason=rest or "—"),
            say("not_available_next", lang),
        ]
    # ERROR, INVALID_ARGUMENTS, MAINTENANCE and any other refusal code
    return [say("error", lang, tool=tool, message=rest or code), _next_step(raw or code, lang)]


def _render_result(tool: str, content: str, lang: Lang) -> list[str]:
    stripped = content.strip()
    outcome = _OUTCOME.match(stripped)
    if outcome:
        return _render_outcome(tool, outcome.group(1), stripped[outcome.end() :].strip(), lang)
    try:
        data = json.loads(stripped)
    except ValueError:
        text = stripped[:MAX_TEXT] + ("…" if len(stripped) > MAX_TEXT else "")
        return [md_escape(text) if text else say("done", lang)]
    if isinstance(data, list):
        return _render_list(data, lang)
    if isinstance(data, dict):
        return _render_dict(data, lang)
    return [_scalar(data)]


def _title(tool: str, args: dict[str, Any], lang: Lang) -> str:
    name = pick(CAPABILITIES[tool], lang) if tool in CAPABILITIES else tool
    env = args.get("target_env") or args.get("env_id")
    suffix = f" — `{tool}`" + (f", {md_escape(env)}" if env else "")
    return say("result_of", lang, title=name[:1].upper() + name[1:]) + suffix


def final_answer(messages: list[BaseMessage], lang: Lang) -> str:
    """A markdown answer built from the tool results that end the conversation."""
    results = trailing_tool_messages(messages)
    if not results:
        return say("no_results", lang)
    calls = _calls_by_id(messages)
    sections: list[str] = []
    for result in results:
        call = calls.get(result.tool_call_id, {})
        tool = call.get("name") or result.name or "tool"
        content = _text(result)
        lines = [] if _OUTCOME.match(content) else [_title(tool, call.get("args") or {}, lang)]
        lines += _render_result(tool, content, lang)
        sections.append("\n".join(lines))
    return "\n\n".join(sections)
