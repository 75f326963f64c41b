"""Arguments read by their names: what a request says a ``sql``, a ``query``, a
``database``… is.

The families' readers use these (``app/planner/tools/``), and a tool with no reader of
its own (a tool declared after the contract's) gets its arguments from the request and
the page by field name (:func:`by_name`): ``dashboard_id``/``dashboard_ids`` (ids, a
slug, or the page's dashboard), ``env_id``, ``source_env``/``target_env``, ``sql``,
``query`` (search words), ``database``/``schema``/``table``/``table_name``, ``role``. A
required text field no name covers takes the request's first quoted text. Anything else
keeps its default; a required argument left empty is asked for (the planner never
guesses).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from app.planner.keywords import AFTER_DB, AFTER_ROLE, AFTER_SCHEMA, AFTER_TABLE, STOP
from app.planner.request import Request

_RU_ENDINGS = re.compile(
    r"(?:иями|ями|ами|ого|его|ому|ему|ыми|ими|ах|ях|ам|ям|ом|ем|ой|ей|ую|юю|ия|ие|ий|ые|ых|их"
    r"|ов|ев|а|я|у|ю|ы|и|е|о)$"
)
_SEARCH_NOISE = re.compile(
    r"\b(?:please|find|search(?:\s+for)?|look\s+(?:for|up)|show(?:\s+me)?|list|give\s+me|get|me"
    r"|all|any|the|a|an|some|my|dashboards?|which|what|are|there|about|named|called|titled"
    r"|i|need|want|would\s+like|how\s+many|count|are|is|do|we|have|there|exist"
    r"|matching|containing|related\s+to|with|for|on)\b"
    r"|\b(?:пожалуйста|найди|найти|поищи|ищи|покажи|мне|все|всех|какие|есть|ли|дашборд\w*"
    r"|нужн\w*|хочу|дай|надо|сколько|у\s+нас"
    r"|список|про|о|об|по|с\s+названием|под\s+названием|связанн\w*\s+с|содержащ\w*)(?!\w)",
    re.IGNORECASE,
)
# "in"/"на" and blanks at the end of the text before an environment's mention
_PREP_AT_END = re.compile(r"(?:\b(?:in|on|at|from)|(?<!\w)(?:в|на|из|с))\s*$")
_TRAILING_PREP = re.compile(r"\b(?:in|on|at|в|на)\s*$")
_WORD = re.compile(r"[\w-]+")
_CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)
AFTER_COLON = re.compile(r":\s*(.+)$", re.DOTALL)


def _without_mentions(req: Request) -> str:
    """``req.scan`` with each environment mention, and an "in"/"на" right before it,
    replaced by a blank."""
    out, last = [], 0
    for m in req.mentions:
        head = _PREP_AT_END.search(req.scan, last, m.start)
        out += [req.scan[last : head.start() if head else m.start], " "]
        last = m.end
    return "".join([*out, req.scan[last:]])


def _stem_ru(word: str) -> str:
    """A light Russian stem for search queries ("маркетингу" → "маркетинг")."""
    stem = _RU_ENDINGS.sub("", word)
    return stem if len(stem) >= 4 else word


def search_words(req: Request) -> str:
    """What a request searches for: its first quoted text, else its words without the
    request's own ("find", "dashboards", "in prod"…), Russian ones stemmed."""
    if req.quoted:
        return req.quoted[0]
    words = _SEARCH_NOISE.sub(" ", _without_mentions(req))  # "in prod" / "на проде"
    words = _TRAILING_PREP.sub(" ", words.strip(" ?!.,"))
    tokens = _WORD.findall(words)
    if req.lang == "ru":
        tokens = [_stem_ru(t) if _CYRILLIC.search(t) else t for t in tokens]
    return " ".join(tokens)


def sql_text(req: Request) -> str | None:
    """The request's SQL statement, else the text after its colon."""
    if req.sql:
        return req.sql
    m = AFTER_COLON.search(req.prefix)
    return m.group(1).strip() if m else None


_NAMED: dict[str, Callable[[Request], Any]] = {
    "sql": sql_text,
    "query": search_words,
    "database": lambda req: req.name_after(AFTER_DB, stop=STOP),
    "schema": lambda req: req.name_after(AFTER_SCHEMA, stop=STOP),
    "table": lambda req: req.name_after(AFTER_TABLE, stop=STOP),
    "table_name": lambda req: req.name_after(AFTER_TABLE, stop=STOP),
    "role": lambda req: req.name_after(AFTER_ROLE, stop=STOP),
}


def _required(fields: Mapping[str, Any], name: str) -> bool:
    info = fields.get(name)
    return bool(info is not None and info.is_required())


def by_name(req: Request, fields: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments ``fields`` (name → pydantic FieldInfo) name, as far as the request
    and the page say them (``None`` where they do not)."""
    args: dict[str, Any] = {}
    from_ctx = False
    if "dashboard_id" in fields or "dashboard_ids" in fields:
        required = _required(fields, "dashboard_id") or _required(fields, "dashboard_ids")
        refs, from_ctx = req.dashboards(required=required)
        if "dashboard_id" in fields:
            args["dashboard_id"] = refs[0] if refs else None
        else:
            args["dashboard_ids"] = refs or None
    if "source_env" in fields or "target_env" in fields:
        source, target = req.source_target(object_from_context=from_ctx)
        args |= {"source_env": source, "target_env": target}
    if "env_id" in fields:
        args["env_id"] = req.env_id(object_from_context=from_ctx)
    for name, read in _NAMED.items():
        if name in fields:
            args[name] = read(req)
    for name, info in fields.items():
        if name not in args and info.is_required() and info.annotation is str and req.quoted:
            args[name] = req.quoted[0]
            break
    return {k: v for k, v in args.items() if k in fields}


def one_dashboard(req: Request) -> dict[str, Any]:
    """The one dashboard a call is about (named, else the page's) and where it lives."""
    refs, from_ctx = req.dashboards(required=True)
    return {
        "dashboard_id": refs[0] if refs else None,
        "env_id": req.env_id(object_from_context=from_ctx),
    }
