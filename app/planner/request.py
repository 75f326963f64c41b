"""One operator request, pre-digested for argument extraction.

:class:`Request` holds the latest human text split into its SQL statement and the rest,
its quoted strings, environment mentions and dashboard references, plus the turn's
context (selected env, configured envs, UIContext). Argument extractors read only this.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from app.i18n import detect_lang
from app.planner.context import TurnContext
from app.planner.names import SLUG, capitalised_name, dashboard_name, quoted_after_keyword
from app.planner.sqltext import split_sql
from app.planner.text import EnvMention, EnvResolver, Lang, blank_quoted, quoted_strings

__all__ = ["AFTER_DASHBOARD", "Request", "after_pattern", "blank_quoted"]

_THIS = re.compile(
    r"\b(?:this|current|that|here|open)\b|\bэт(?:от|у|ого|ом|им|а|и)\b|текущ\w*|открыт\w*"
    r"|\bданн(?:ый|ого|ом|ую)\b",
    re.IGNORECASE,
)
# numbers joined by commas, "and", "и", "&" or blanks; blanks taken whole (\s*+), so a
# run between two numbers is read one way only
_ID_LIST = r"(\d++(?:\s*+(?:[,;&]|and|и)?+\s*+\d++)*+)"
# a keyword's Russian ending is letters only (its digits are the id: "дашборд5")
_DASHBOARD_IDS = re.compile(
    r"(?:\bdashboards?|дашборд[^\W\d]{0,30}+|\bids?\b|#|№)\s*+"
    r"(?:(?:id|#|№|номер[^\W\d]{0,30}+)\s*+)?(?:[:=]\s*+)?" + _ID_LIST,
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")
_BARE_NUMBER = re.compile(r"(?<![\w.:/-])\d+(?![\w.:/-])")
# right after a number: a unit (a duration, rows, a percentage) says it is no dashboard
_UNIT_AFTER = re.compile(
    r"(?<!\s)\s*+(?:min|m\b|h\b|hours?|hrs?|rows?|lines?|мин|час|строк|%)", re.IGNORECASE
)
# right before a number (after blanks and one "#"/"№"): a word that says it is a task,
# a backup, a row limit or a role; the Russian stems anywhere in the last word
_KEYWORD_BEFORE = re.compile(r"(?:tasks?|jobs?|backups?|limit|first|top|role|роли)\Z", re.I)
_KEYWORD_BEFORE_CHARS = 7  # "backups"
_STEM_BEFORE = re.compile(r"задач|бэкап|бекап", re.IGNORECASE)


def _is_word_char(c: str) -> bool:
    return c.isalnum() or c == "_"


def _not_a_dashboard_before(scan: str, start: int) -> bool:
    """Whether the words before the number at ``start`` say it is no dashboard id
    (read backwards from the number: its cost is the words it reads, not the text)."""
    i = start
    while i > 0 and scan[i - 1].isspace():
        i -= 1
    if i > 0 and scan[i - 1] in "#№":
        i -= 1
        while i > 0 and scan[i - 1].isspace():
            i -= 1
    if _KEYWORD_BEFORE.search(scan, max(0, i - _KEYWORD_BEFORE_CHARS), i):
        return True
    word = i
    while word > 0 and _is_word_char(scan[word - 1]):
        word -= 1
    return bool(_STEM_BEFORE.search(scan, word, i))


@lru_cache(maxsize=64)
def after_pattern(keywords: str) -> re.Pattern[str]:
    """The identifier after one of ``keywords`` (a regex alternation): blanks, an
    optional ":"/"=", an optional opening quote, then the identifier."""
    return re.compile(
        rf"(?:{keywords})\s*+(?:[:=]\s*+)?[\"'«“`]?([A-Za-z0-9_][\w./:-]*+)", re.IGNORECASE
    )


AFTER_DASHBOARD = after_pattern(r"dashboards?|дашборд\w{0,30}")


@dataclass(frozen=True)
class Request:
    text: str
    lang: Lang
    ctx: TurnContext
    envs: EnvResolver
    sql: str | None
    prefix: str  # the text with the SQL statement replaced by a placeholder
    scan: str  # the prefix with quoted fragments blanked: where ids and envs are read
    quoted: tuple[str, ...]
    mentions: tuple[EnvMention, ...]

    @classmethod
    def build(cls, text: str, ctx: TurnContext) -> Request:
        envs = EnvResolver(ctx.environments)
        split = split_sql(text, envs.pattern)
        scan = blank_quoted(split.prefix)
        return cls(
            text=text,
            lang=ctx.lang or detect_lang(text),
            ctx=ctx,
            envs=envs,
            sql=split.sql,
            prefix=split.prefix,
            scan=scan,
            quoted=tuple(quoted_strings(split.prefix)),
            mentions=tuple(envs.mentions(scan)),
        )

    # --- environments ---------------------------------------------------------------------
    def mentioned_env(self, role: str | None = None) -> str | None:
        for m in self.mentions:
            if role is None or m.role == role:
                return m.env_id
        return None

    def env_id(self, *, object_from_context: bool = False) -> str | None:
        """Mentioned env > the page's env (for the page's object) > selected > page env."""
        if mentioned := self.mentioned_env():
            return mentioned
        if object_from_context and self.ctx.context_env:
            return self.ctx.context_env
        return self.ctx.selected_env or self.ctx.context_env

    def source_target(self, *, object_from_context: bool = False) -> tuple[str | None, str | None]:
        target = self.mentioned_env("target")
        source = self.mentioned_env("source")
        unmarked = [m.env_id for m in self.mentions if m.role is None]
        if target is None and unmarked:
            target = unmarked.pop()
        if source is None and unmarked:
            source = unmarked[0]
        if source is None:
            fallback = (
                self.ctx.context_env if object_from_context else None
            ) or self.ctx.selected_env
            source = fallback if fallback != target else None
        return source, target

    # --- dashboards -------------------------------------------------------------------------
    @property
    def says_this(self) -> bool:
        return bool(_THIS.search(self.scan))

    def dashboard_ids(self) -> list[str]:
        """Ids named after "dashboard(s)"/"#"/"id", else bare numbers that are not
        durations, row limits, task or backup ids."""
        ids: list[str] = []
        seen: set[str] = set()  # a set: a list's "in" would make many ids quadratic
        for m in _DASHBOARD_IDS.finditer(self.scan):
            found = [n for n in _DIGITS.findall(m.group(1)) if n not in seen]
            ids += found
            seen.update(found)
        if ids:
            return ids
        for m in _BARE_NUMBER.finditer(self.scan):
            if _UNIT_AFTER.match(self.scan, m.end()) or _not_a_dashboard_before(
                self.scan, m.start()
            ):
                continue
            ids.append(m.group(0))
        return ids

    def dashboard_slug(self, *, required: bool) -> str | None:
        """A slug (``sales-overview``) named after "dashboard" or quoted."""
        if self.quoted and (required or quoted_after_keyword(self.prefix)):
            return self.quoted[0] if SLUG.fullmatch(self.quoted[0]) else None
        slug = self.name_after(AFTER_DASHBOARD)
        return slug if slug and SLUG.fullmatch(slug) else None

    def dashboard_title(self, *, required: bool) -> str | None:
        """A dashboard named by its title (looked up by search before the call)."""
        if self.dashboard_ids() or self.dashboard_slug(required=required):
            return None
        if self.quoted and (required or quoted_after_keyword(self.prefix)):
            return self.quoted[0]
        named = dashboard_name(self.scan, self.envs.pattern)
        if named is None and required:
            named = capitalised_name(self.scan, self.envs.pattern)
        return named

    def dashboards(self, *, required: bool) -> tuple[list[str], bool]:
        """(dashboard refs, taken from the page context?).

        Explicit ids first, then a slug; nothing when the request names a title (the
        planner looks it up); the page's dashboard when the request says "this"/"этот",
        or when a dashboard is required and none is named."""
        ids = self.dashboard_ids()
        if ids:
            return ids, False
        slug = self.dashboard_slug(required=required)
        if slug:
            return [slug], False
        if self.dashboard_title(required=required):
            return [], False
        page = self.ctx.context_dashboard
        if page and (self.says_this or required):
            return [page], True
        return [], False

    # --- names ---------------------------------------------------------------------------------
    def name_after(
        self, keywords: str | re.Pattern[str], *, stop: frozenset[str] = frozenset()
    ) -> str | None:
        """The identifier that follows one of ``keywords`` (a regex alternation, or its
        :func:`after_pattern`)."""
        pattern = keywords if isinstance(keywords, re.Pattern) else after_pattern(keywords)
        for m in pattern.finditer(self.prefix):
            word = m.group(1).rstrip(".,:;")
            if word.lower() in stop or word.lower() == "sqlquery":
                continue
            if self.envs.pattern.fullmatch(word):
                continue
            return word
        return None
