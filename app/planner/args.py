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
from app.planner.phrases import say
from app.planner.request import Request

ArgsFn = Callable[[Request], dict[str, Any]]

STOP = frozenset(
    "in on of from for to the a an all with into at by и в на из для по с the all every "
    "list show name named called have has contain contains does do are is there exist exists"
    " here".split()
)
DB = r"\bdatabases?\b|\bdb\b|баз[аеуы]\s+данных|\bбаз[аеуы]\b|\bбд\b"
SCHEMA = r"\bschemas?\b|\bсхем[аеуы]?\b"
TABLE = r"\btables?\b|\bтаблиц[аеуы]?\b"
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


def _stem_ru(word: str) -> str:
    """A light Russian stem for search queries ("маркетингу" → "маркетинг")."""
    stem = _RU_ENDINGS.sub("", word)
    return stem if len(stem) >= 4 else word


def search_args(req: Request) -> dict[str, Any]:
    if req.quoted:
        query = req.quoted[0]
    else:
        text = req.scan
        for m in reversed(req.mentions):  # drop "in prod" / "на проде"
            head = re.sub(r"(?:\b(?:in|on|at|from)|(?<!\w)(?:в|на|из|с))\s*$", "", text[: m.start])
            text = head + " " + text[m.end :]
        words = _SEARCH_NOISE.sub(" ", text)
        words = re.sub(r"\b(?:in|on|at|в|на)\s*$", " ", words.strip(" ?!.,"))
        tokens = re.findall(r"[\w-]+", words)
        if req.lang == "ru":
            tokens = [_stem_ru(t) if re.search("[а-яё]", t, re.I) else t for t in tokens]
        query = " ".join(tokens)
    return {"query": query, "env_id": req.env_id()}


def _one_dashboard(req: Request) -> dict[str, Any]:
    refs, from_ctx = req.dashboards(required=True)
    return {
        "dashboard_id": refs[0] if refs else None,
        "env_id": req.env_id(object_from_context=from_ctx),
    }


def _explore(req: Request) -> dict[str, Any]:
    database = req.name_after(DB, stop=STOP)
    if database is None:
        m = re.search(
            r"(?:tables|schemas|таблиц\w*|схем\w*)\s+(?:in|of|from|в|из)\s+([A-Za-z_][\w.-]*)",
            req.scan,
            re.IGNORECASE,
        )
        if m and not req.envs.pattern.fullmatch(m.group(1)) and m.group(1).lower() not in STOP:
            database = m.group(1)
    if database and re.fullmatch(r"schema|схем\w*|table|таблиц\w*", database, re.IGNORECASE):
        database = None
    if database is None:  # "the examples database"
        m = re.search(r"\b([A-Za-z_][\w.-]*)\s+(?:database|db)\b", req.scan, re.IGNORECASE)
        if m and m.group(1).lower() not in STOP:
            database = m.group(1)
    return {
        "env_id": req.env_id(),
        "database": database,
        "schema": req.name_after(SCHEMA, stop=STOP),
        "table": req.name_after(r"\btable\b|\bтаблиц[аеуы]\b", stop=STOP),
    }


def sql_text(req: Request) -> str | None:
    if req.sql:
        return req.sql
    m = re.search(r":\s*(.+)$", req.prefix, re.DOTALL)
    return m.group(1).strip() if m else None


def _format_sql(req: Request) -> dict[str, Any]:
    return {"sql": sql_text(req), "env_id": req.env_id()}


def _execute_sql(req: Request) -> dict[str, Any]:
    args: dict[str, Any] = {
        "sql": sql_text(req),
        "database": req.name_after(DB, stop=STOP),
        "schema": req.name_after(SCHEMA, stop=STOP),
        "env_id": req.env_id(),
    }
    limit = re.search(
        r"(?:limit|first|top|row_limit)\s*(\d+)|(\d+)\s*(?:rows|строк)", req.scan, re.IGNORECASE
    )
    if limit:
        args["row_limit"] = int(limit.group(1) or limit.group(2))
    return args


def name_before(req: Request, keywords: str) -> str | None:
    """The identifier right before one of ``keywords`` ("the customers table")."""
    pattern = re.compile(rf"([A-Za-z_][\w.]*)\s+(?:{keywords})", re.IGNORECASE)
    for m in pattern.finditer(req.scan):
        word = m.group(1)
        if word.lower() not in STOP and not req.envs.pattern.fullmatch(word):
            return word
    return None


def _create_dataset(req: Request) -> dict[str, Any]:
    table = req.name_after(TABLE, stop=STOP) or name_before(req, TABLE)
    schema = req.name_after(SCHEMA, stop=STOP)
    if table and "." in table and schema is None:
        schema, table = table.rsplit(".", 1)
    if req.sql:
        named = req.name_after(r"\bnamed\b|\bcalled\b|\bas\b|с\s+именем|назови\w*|под\s+именем")
        table = named or (req.quoted[0] if req.quoted else table)
    return {
        "database": req.name_after(DB, stop=STOP),
        "table_name": table,
        "schema": schema,
        "sql": req.sql,
        "env_id": req.env_id(),
    }


#: words after "roles" that name no role ("which roles can see everything?")
_NOT_A_ROLE = STOP | frozenset("can could may see sees get gets which who that have".split())


def _audit(req: Request) -> dict[str, Any]:
    role = req.name_after(r"\broles?\b|\bрол[иья]\w*", stop=_NOT_A_ROLE)
    return {"env_id": req.env_id(), "role": role or (req.quoted[0] if req.quoted else None)}


def _deploy(req: Request) -> dict[str, Any]:
    refs, from_ctx = req.dashboards(required=True)
    source, target = req.source_target(object_from_context=from_ctx)
    return {"dashboard_id": refs[0] if refs else None, "source_env": source, "target_env": target}


def _migration(req: Request) -> dict[str, Any]:
    refs, from_ctx = req.dashboards(required=True)
    source, target = req.source_target(object_from_context=from_ctx)
    mapping: dict[str, str] = {}
    m = re.search(r"(?:\bmap\w*|маппинг\w*|сопостав\w*)\s*[:=]?\s*(.+)$", req.prefix, re.I)
    if m:
        pairs = re.findall(r"([\w.-]+)\s*(?:->|=>|→|=|:)\s*([\w.-]+)", m.group(1))
        mapping = dict(pairs)
    return {
        "dashboard_ids": refs,
        "source_env": source,
        "target_env": target,
        "database_mapping": mapping or None,
    }


def _branch(req: Request) -> dict[str, Any]:
    refs, from_ctx = req.dashboards(required=False)
    name = req.name_after(
        r"\bbranch(?:\s+(?:named|called))?|ветк[уаи](?:\s+с\s+именем|\s+под\s+названием)?"
        r"|бранч|ветвь",
        stop=STOP | {"for", "для", "from", "от", "с"},
    )
    return {
        "branch": name or (req.quoted[0] if req.quoted else None),
        "dashboard_id": refs[0] if refs else None,
        "env_id": req.env_id(object_from_context=from_ctx),
    }


def _commit(req: Request) -> dict[str, Any]:
    refs, from_ctx = req.dashboards(required=False)
    message = req.quoted[0] if req.quoted else None
    if message is None:
        m = re.search(
            r"(?:message|msg|сообщени\w*|комментари\w*|с\s+текстом)\s*[:=]?\s*(.+)$|:\s*(.+)$",
            req.prefix,
            re.IGNORECASE,
        )
        message = (m.group(1) or m.group(2)).strip() if m else None
    if message is None and refs:  # a default naming the dashboards (editable on the card)
        message = say("default_commit_message", req.lang, ids=", ".join(map(str, refs)))
    branch = req.name_after(r"\bbranch\b|ветк[уеи]", stop=STOP)
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
