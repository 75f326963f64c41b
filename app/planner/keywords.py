"""Keywords that name a database, a schema, a table, a role or a new name, the identifier
read right after (or before) one of them, and the database a request names (a family's
own keywords are in its file).

Each reader is a module constant made by :func:`app.planner.request.after_pattern` or
:func:`before_pattern` (a compiled pattern the linear-time test reads).
"""

from __future__ import annotations

import re
from functools import lru_cache

from app.planner.request import Request, after_pattern

STOP = frozenset(
    "in on of from for to the a an all with into at by и в на из для по с the all every "
    "list show name named called have has contain contains does do are is there exist exists"
    " here".split()
)
DB = r"\bdatabases?\b|\bdb\b|баз[аеуы]\s+данных|\bбаз[аеуы]\b|\bбд\b"
SCHEMA = r"\bschemas?\b|\bсхем[аеуы]?\b"
TABLE = r"\btables?\b|\bтаблиц[аеуы]?\b"
ROLE = r"\broles?\b|\bрол[иья]\w*"
AFTER_DB = after_pattern(DB)
AFTER_SCHEMA = after_pattern(SCHEMA)
AFTER_TABLE = after_pattern(TABLE)
AFTER_ROLE = after_pattern(ROLE)
AFTER_ONE_TABLE = after_pattern(r"\btable\b|\bтаблиц[аеуы]\b")
AFTER_NAMED = after_pattern(r"\bnamed\b|\bcalled\b|\bas\b|с\s+именем|назови\w{0,30}|под\s+именем")


@lru_cache(maxsize=16)
def before_pattern(keywords: str) -> re.Pattern[str]:
    """The identifier right before one of ``keywords``: from the first letter of its run
    of [\\w.] (tried once per run: atomic) to the run's end, then blanks."""
    return re.compile(
        rf"(?<![\w.])(?>[\w.]*?(?=[A-Za-z_]))([A-Za-z_][\w.]*+)\s+(?:{keywords})",
        re.IGNORECASE,
    )


BEFORE_TABLE = before_pattern(TABLE)


def name_before(req: Request, keywords: str) -> str | None:
    """The identifier right before one of ``keywords`` ("the customers table")."""
    for m in before_pattern(keywords).finditer(req.scan):
        word = m.group(1)
        if word.lower() not in STOP and not req.envs.pattern.fullmatch(word):
            return word
    return None


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


def database_named(req: Request) -> str | None:
    """The database a request names: after "database"/«база», else "tables in <name>",
    else "<name> database" (never "schema"/"table" itself)."""
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
    return database
