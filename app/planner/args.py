"""Argument extraction: one small function per tool, in one table (:data:`EXTRACTORS`).

Argument names are the ones of DEVELOPERS.md's table. ``None`` values are dropped, so a
tool's default applies (``env_id=None`` means the selected environment). A required
argument that cannot be found is listed by :func:`missing_args`; the planner then asks
for it instead of guessing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from app.planner.args_ops import (
    list_backups_args,
    restore_backup_args,
    run_backup_args,
    start_maintenance_args,
    task_status_args,
)
from app.planner.keywords import (
    AFTER_BRANCH,
    AFTER_BRANCH_NAMED,
    AFTER_DB,
    AFTER_NAMED,
    AFTER_ONE_TABLE,
    AFTER_ROLE,
    AFTER_SCHEMA,
    AFTER_TABLE,
    DB,
    SCHEMA,
    STOP,
    TABLE,
    name_before,
)
from app.planner.phrases import say
from app.planner.request import Request
from app.planner.tails import tail_pattern, tail_search, tail_value

__all__ = ["DB", "EXTRACTORS", "SCHEMA", "STOP", "TABLE", "extract_args", "missing_args"]

ArgsFn = Callable[[Request], dict[str, Any]]

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
# "tables in <database>"; a Russian ending is at most 30 letters (a word repeating the
# stem is then not read again from each repetition)
_IN_DATABASE = re.compile(
    r"(?:tables|schemas|таблиц\w{0,30}+|схем\w{0,30}+)\s++(?:in|of|from|в|из)\s++"
    r"([A-Za-z_][\w.-]*+)",
    re.IGNORECASE,
)
_SCHEMA_OR_TABLE = re.compile(r"\A(?:schema|схем\w*|table|таблиц\w*)\Z", re.IGNORECASE)
# "<name> database": the name starts at the first letter of its run of [\w.-] after the
# run's start or a "."/"-" (as "\b[A-Za-z_]" would), tried once per run (atomic)
_NAME_BEFORE_DB = re.compile(
    r"(?<![\w.-])(?>[\w.-]*?\b(?=[A-Za-z_]))([A-Za-z_][\w.-]*+)\s+(?:database|db)\b",
    re.IGNORECASE,
)
AFTER_COLON = re.compile(r":\s*(.+)$", re.DOTALL)
_ROW_LIMIT = re.compile(
    r"(?:limit|first|top|row_limit)\s*+(\d++)|(?<!\d)(\d++)\s*+(?:rows|строк)", re.IGNORECASE
)
_MAPPING = tail_pattern(r"(?:\bmap\w*|маппинг\w*|сопостав\w*)(?:\s*+[:=])?", re.IGNORECASE)
# "a -> b" pairs: a name runs to the end of its [\w.-] run, less a "-" that starts "->"
_PAIR = re.compile(r"(?<![\w.-])((?:[\w.]|-(?!>))++)\s*+(?:->|=>|→|=|:)\s*+([\w.-]++)")
_MESSAGE = tail_pattern(
    r"(?:message|msg|сообщени\w*|комментари\w*|с\s+текстом)(?:\s*+[:=])?|:", re.IGNORECASE
)


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


def search_args(req: Request) -> dict[str, Any]:
    if req.quoted:
        query = req.quoted[0]
    else:
        words = _SEARCH_NOISE.sub(" ", _without_mentions(req))  # "in prod" / "на проде"
        words = _TRAILING_PREP.sub(" ", words.strip(" ?!.,"))
        tokens = _WORD.findall(words)
        if req.lang == "ru":
            tokens = [_stem_ru(t) if _CYRILLIC.search(t) else t for t in tokens]
        query = " ".join(tokens)
    return {"query": query, "env_id": req.env_id()}


def _one_dashboard(req: Request) -> dict[str, Any]:
    refs, from_ctx = req.dashboards(required=True)
    return {
        "dashboard_id": refs[0] if refs else None,
        "env_id": req.env_id(object_from_context=from_ctx),
    }


def _explore(req: Request) -> dict[str, Any]:
    database = req.name_after(AFTER_DB, stop=STOP)
    if database is None:
        m = _IN_DATABASE.search(req.scan)
        if m and not req.envs.pattern.fullmatch(m.group(1)) and m.group(1).lower() not in STOP:
            database = m.group(1)
    if database and _SCHEMA_OR_TABLE.fullmatch(database):
        database = None
    if database is None:  # "the examples database"
        m = _NAME_BEFORE_DB.search(req.scan)
        if m and m.group(1).lower() not in STOP:
            database = m.group(1)
    return {
        "env_id": req.env_id(),
        "database": database,
        "schema": req.name_after(AFTER_SCHEMA, stop=STOP),
        "table": req.name_after(AFTER_ONE_TABLE, stop=STOP),
    }


def sql_text(req: Request) -> str | None:
    if req.sql:
        return req.sql
    m = AFTER_COLON.search(req.prefix)
    return m.group(1).strip() if m else None


def _format_sql(req: Request) -> dict[str, Any]:
    return {"sql": sql_text(req), "env_id": req.env_id()}


def _execute_sql(req: Request) -> dict[str, Any]:
    args: dict[str, Any] = {
        "sql": sql_text(req),
        "database": req.name_after(AFTER_DB, stop=STOP),
        "schema": req.name_after(AFTER_SCHEMA, stop=STOP),
        "env_id": req.env_id(),
    }
    limit = _ROW_LIMIT.search(req.scan)
    if limit:
        args["row_limit"] = int(limit.group(1) or limit.group(2))
    return args


def _create_dataset(req: Request) -> dict[str, Any]:
    table = req.name_after(AFTER_TABLE, stop=STOP) or name_before(req, TABLE)
    schema = req.name_after(AFTER_SCHEMA, stop=STOP)
    if table and "." in table and schema is None:
        schema, table = table.rsplit(".", 1)
    if req.sql:
        named = req.name_after(AFTER_NAMED)
        table = named or (req.quoted[0] if req.quoted else table)
    return {
        "database": req.name_after(AFTER_DB, stop=STOP),
        "table_name": table,
        "schema": schema,
        "sql": req.sql,
        "env_id": req.env_id(),
    }


#: words after "roles" that name no role ("which roles can see everything?")
_NOT_A_ROLE = STOP | frozenset("can could may see sees get gets which who that have".split())


def _audit(req: Request) -> dict[str, Any]:
    role = req.name_after(AFTER_ROLE, stop=_NOT_A_ROLE)
    return {"env_id": req.env_id(), "role": role or (req.quoted[0] if req.quoted else None)}


def _deploy(req: Request) -> dict[str, Any]:
    refs, from_ctx = req.dashboards(required=True)
    source, target = req.source_target(object_from_context=from_ctx)
    return {"dashboard_id": refs[0] if refs else None, "source_env": source, "target_env": target}


def _migration(req: Request) -> dict[str, Any]:
    refs, from_ctx = req.dashboards(required=True)
    source, target = req.source_target(object_from_context=from_ctx)
    mapping: dict[str, str] = {}
    m = tail_search(_MAPPING, req.prefix)
    if m:
        mapping = dict(_PAIR.findall(tail_value(m)))
    return {
        "dashboard_ids": refs,
        "source_env": source,
        "target_env": target,
        "database_mapping": mapping or None,
    }


def _branch(req: Request) -> dict[str, Any]:
    refs, from_ctx = req.dashboards(required=False)
    name = req.name_after(AFTER_BRANCH_NAMED, stop=STOP | {"for", "для", "from", "от", "с"})
    return {
        "branch": name or (req.quoted[0] if req.quoted else None),
        "dashboard_id": refs[0] if refs else None,
        "env_id": req.env_id(object_from_context=from_ctx),
    }


def _commit(req: Request) -> dict[str, Any]:
    refs, from_ctx = req.dashboards(required=False)
    message = req.quoted[0] if req.quoted else None
    if message is None:
        m = tail_search(_MESSAGE, req.prefix)
        message = tail_value(m).strip() if m else None
    if message is None and refs:  # a default naming the dashboards (editable on the card)
        message = say("default_commit_message", req.lang, ids=", ".join(map(str, refs)))
    branch = req.name_after(AFTER_BRANCH, stop=STOP)
    return {
        "message": message,
        "dashboard_ids": refs or None,
        "branch": branch,
        "env_id": req.env_id(object_from_context=from_ctx),
    }


EXTRACTORS: dict[str, ArgsFn] = {
    "show_capabilities": lambda req: {},
    "list_environments": lambda req: {},
    "get_task_status": task_status_args,
    "search_dashboards": search_args,
    "get_health_summary": _one_dashboard,
    "run_llm_validation": _one_dashboard,
    "run_llm_documentation": _one_dashboard,
    "superset_explore_database": _explore,
    "superset_format_sql": _format_sql,
    "superset_execute_sql": _execute_sql,
    "superset_create_dataset": _create_dataset,
    "superset_audit_permissions": _audit,
    "list_backups": list_backups_args,
    "deploy_dashboard": _deploy,
    "execute_migration": _migration,
    "create_branch": _branch,
    "commit_changes": _commit,
    "run_backup": run_backup_args,
    "restore_backup": restore_backup_args,
    "start_maintenance": start_maintenance_args,
    "end_maintenance": lambda req: {"env_id": req.env_id()},
    "delete_dashboard": _one_dashboard,
}

REQUIRED: dict[str, tuple[str, ...]] = {
    "get_health_summary": ("dashboard_id",),
    "run_llm_validation": ("dashboard_id",),
    "run_llm_documentation": ("dashboard_id",),
    "superset_format_sql": ("sql",),
    "superset_execute_sql": ("sql",),
    "superset_create_dataset": ("database", "table_name"),
    "deploy_dashboard": ("dashboard_id", "target_env"),
    "execute_migration": ("dashboard_ids", "target_env"),
    "create_branch": ("branch",),
    "commit_changes": ("message",),
    "restore_backup": ("backup_id",),
    "delete_dashboard": ("dashboard_id",),
}


def extract_args(tool: str, req: Request) -> dict[str, Any]:
    """The call's arguments, without the ``None``/empty-optional ones."""
    args = EXTRACTORS[tool](req)
    return {k: v for k, v in args.items() if v is not None}


def missing_args(tool: str, args: dict[str, Any]) -> list[str]:
    return [name for name in REQUIRED.get(tool, ()) if not args.get(name)]
