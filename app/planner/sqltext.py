"""Where the SQL statement of a request starts and ends.

The statement is a ``` fence, a `quoted` statement, or the text from the first SQL
keyword to the end of the request *minus its trailing phrases*: "on database 1",
"in prod", "на проде", "в базе 2", "in schema raw", "please" stay outside the SQL (they
are arguments), so "run select count(*) as n from sales on database 1" yields the SQL
``select count(*) as n from sales``. A statement with such a phrase glued to its end
would not parse and would be rated dangerous.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_SQL_START = re.compile(
    r"\b(?:select\s+\S|with\s+\w+\s+as\s*\(|insert\s+into\s|update\s+[\w.\"]+\s+set\s"
    r"|delete\s+from\s|drop\s+(?:table|view|schema|database)\s|truncate\s+(?:table\s+)?\w"
    r"|create\s+(?:or\s+replace\s+)?(?:table|view)\s|alter\s+table\s)",
    re.IGNORECASE,
)
# The first ``` of the text and the fence it opens (nothing when it is never closed): a
# search would try every later ``` again, each scanning to the end of the text.
_FENCE = re.compile(r"\A(?>(.*?)```)(?:sql)?+\s*+(.+?)```", re.IGNORECASE | re.DOTALL)
_BACKQUOTED = re.compile(r"`([^`]+)`")
_FULL_STOP = re.compile(r"(?<=[^\d\s])\.$")  # a sentence's full stop
SQL_PLACEHOLDER = " sqlquery "

# Each trailing phrase starts at the first blank of a run ((?<!\s)) and takes blanks
# whole (\s++): a search then tries one start per run, and no run is split two ways.
_RUN = r"(?<!\s)\s++"
_AT = r"(?:on|in|at|against|using|в|во|на)"
_DB_WORD = r"(?:database|db|базе(?:\s++данных)?|базу(?:\s++данных)?|бд)"
_ENV_WORD = r"(?:env(?:ironment)?|окружении|окружение|стенде|среде)"
_SCHEMA_WORD = r"(?:schema|схеме|схему)"
_NAME = r"(?:[#№]\s*+)?[\w.-]++"
_NO_ENV = r"(?!x)x"  # matches nothing: no configured environments
MAX_TRAILING_PHRASES = 8  # "… on database 1 in schema raw in prod please" has four


@lru_cache(maxsize=64)
def trailing_patterns(env: str = _NO_ENV) -> tuple[re.Pattern[str], ...]:
    """The trailing argument phrases, ``env`` being the environments' pattern."""
    flags = re.IGNORECASE
    return (
        re.compile(rf"{_RUN}{_AT}\s++(?:the\s++)?{_DB_WORD}\s++{_NAME}$", flags),
        re.compile(rf"{_RUN}{_AT}\s++(?:the\s++)?(?:{_ENV_WORD}\s++)?(?:{env})$", flags),
        re.compile(rf"{_RUN}{_AT}\s++(?:the\s++)?{_SCHEMA_WORD}\s++{_NAME}$", flags),
        # blanks, an optional comma and at least one blank before "please"
        re.compile(r"(?<!\s)\s*+(?:,\s++|(?<=\s))(?:please|pls|пожалуйста)$", flags),
    )


def cut_trailing_phrases(body: str, env_pattern: re.Pattern[str] | None) -> tuple[str, str]:
    """``(statement, tail)``: the trailing argument phrases moved from the end of
    ``body`` into ``tail`` (repeatedly: "… on database 1 in prod", at most
    :data:`MAX_TRAILING_PHRASES`: each cut searches the whole statement again)."""
    patterns = trailing_patterns(env_pattern.pattern if env_pattern is not None else _NO_ENV)
    tail = ""
    for cuts in range(MAX_TRAILING_PHRASES + 1):
        stripped = body.rstrip(" \t\n;!?")
        stripped = _FULL_STOP.sub("", stripped)
        tail = body[len(stripped) :] + tail
        body = stripped
        found = None
        if cuts < MAX_TRAILING_PHRASES:
            found = next((m for p in patterns if (m := p.search(body))), None)
        if found is None:
            break
        body, tail = body[: found.start()], body[found.start() :] + tail
    return body, tail


@dataclass(frozen=True)
class SqlSplit:
    sql: str | None
    prefix: str  # the request with the SQL replaced by SQL_PLACEHOLDER


def _clean(sql: str) -> str:
    return sql.strip().strip("\"'«»“”").rstrip(";").strip()


def split_sql(text: str, env_pattern: re.Pattern[str] | None = None) -> SqlSplit:
    """Find the SQL statement in a request (see the module docstring)."""
    fence = _FENCE.match(text)
    if fence:
        sql = _clean(fence.group(2))
        return SqlSplit(sql, fence.group(1) + SQL_PLACEHOLDER + text[fence.end() :])
    for quoted in _BACKQUOTED.finditer(text):
        if _SQL_START.match(quoted.group(1).strip()):
            sql = _clean(quoted.group(1))
            return SqlSplit(sql, text[: quoted.start()] + SQL_PLACEHOLDER + text[quoted.end() :])
    m = _SQL_START.search(text)
    if not m:
        return SqlSplit(None, text)
    body, tail = cut_trailing_phrases(text[m.start() :], env_pattern)
    return SqlSplit(_clean(body), text[: m.start()] + SQL_PLACEHOLDER + tail)
