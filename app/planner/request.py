"""One operator request, pre-digested for argument extraction.

:class:`Request` holds the latest human text split into its SQL statement and the rest,
its quoted strings, environment mentions and dashboard references, plus the turn's
context (selected env, configured envs, UIContext). Argument extractors read only this.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.i18n import detect_lang
from app.planner.context import TurnContext
from app.planner.names import SLUG, capitalised_name, dashboard_name, quoted_after_keyword
from app.planner.sqltext import split_sql
from app.planner.text import (
    QUOTED_PATTERN,
    EnvMention,
    EnvResolver,
    Lang,
    quoted_strings,
)

_THIS = re.compile(
    r"\b(?:this|current|that|here|open)\b|\bэт(?:от|у|ого|ом|им|а|и)\b|текущ\w*|открыт\w*"
    r"|\bданн(?:ый|ого|ом|ую)\b",
    re.IGNORECASE,
)
_ID_LIST = r"(\d+(?:\s*(?:,|;|and|&|и|\s)\s*\d+)*)"
_DASHBOARD_IDS = re.compile(
    r"(?:\bdashboards?|дашборд\w*|\bids?\b|#|№)\s*(?:id|#|№|номер\w*)?\s*[:=]?\s*" + _ID_LIST,
    re.IGNORECASE,
)
_UNIT_AFTER = re.compile(
    r"\s*(?:min\w*|m\b|h\b|hours?|hrs?|rows?|lines?|мин\w*|час\w*|строк\w*|%)", re.IGNORECASE
)
_NOT_DASHBOARD_BEFORE = re.compile(
    r"(?:tasks?|jobs?|backups?|задач\w*|бэкап\w*|бекап\w*|limit|first|top|role|роли)\s*[#№]?\s*$",
    re.IGNORECASE,
)


def blank_quoted(text: str) -> str:
    """The text with quoted fragments replaced by spaces (positions kept)."""
    return re.sub(QUOTED_PATTERN, lambda m: " " * len(m.group(0)), text)


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
        for m in _DASHBOARD_IDS.finditer(self.scan):
            ids += [n for n in re.findall(r"\d+", m.group(1)) if n not in ids]
        if ids:
            return ids
        for m in re.finditer(r"(?<![\w.:/-])\d+(?![\w.:/-])", self.scan):
            if _UNIT_AFTER.match(self.scan, m.end()) or _NOT_DASHBOARD_BEFORE.search(
                self.scan[: m.start()]
            ):
                continue
            ids.append(m.group(0))
        return ids

    def dashboard_slug(self, *, required: bool) -> str | None:
        """A slug (``sales-overview``) named after "dashboard" or quoted."""
        if self.quoted and (required or quoted_after_keyword(self.prefix)):
            return self.quoted[0] if SLUG.fullmatch(self.quoted[0]) else None
        slug = self.name_after(r"dashboards?|дашборд\w*")
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
    def name_after(self, keywords: str, *, stop: frozenset[str] = frozenset()) -> str | None:
        """The identifier that follows one of ``keywords`` (a regex alternation)."""
        pattern = re.compile(
            rf"(?:{keywords})\s*[:=]?\s*[\"'«“`]?([A-Za-z0-9_][\w./:-]*)", re.IGNORECASE
        )
        for m in pattern.finditer(self.prefix):
            word = m.group(1).rstrip(".,:;")
            if word.lower() in stop or word.lower() == "sqlquery":
                continue
            if self.envs.pattern.fullmatch(word):
                continue
            return word
        return None
