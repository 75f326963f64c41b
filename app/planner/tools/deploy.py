"""The offline planner's knowledge of the deploy tools: deploying a dashboard, migrating
dashboards (from one environment to another, a database mapping optional)."""

from __future__ import annotations

import re
from typing import Any

from app.planner.knowledge import Need, ToolKnowledge, row
from app.planner.labels import named
from app.planner.markup import md_escape, quote
from app.planner.numbers import Noun, count_of
from app.planner.phrases import say, sayer
from app.planner.request import Request
from app.planner.results import Result
from app.planner.slots import Phrases, Slots, Texts, on_dashboards, phrased
from app.planner.tails import tail_pattern, tail_search, tail_value
from app.planner.text import Lang

DASHBOARDS = Noun(("dashboard", "dashboards"), ("дашборд", "дашборда", "дашбордов"))

# --- reading ------------------------------------------------------------------------------
_MAPPING = tail_pattern(r"(?:\bmap\w*|маппинг\w*|сопостав\w*)(?:\s*+[:=])?", re.IGNORECASE)
# "a -> b" pairs: a name runs to the end of its [\w.-] run, less a "-" that starts "->"
_PAIR = re.compile(r"(?<![\w.-])((?:[\w.]|-(?!>))++)\s*+(?:->|=>|→|=|:)\s*+([\w.-]++)")


def _deploy_args(req: Request) -> dict[str, Any]:
    refs, from_ctx = req.dashboards(required=True)
    source, target = req.source_target(object_from_context=from_ctx)
    return {"dashboard_id": refs[0] if refs else None, "source_env": source, "target_env": target}


def _migration_args(req: Request) -> dict[str, Any]:
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


# --- saying a call ------------------------------------------------------------------------
def _moved_said(doing: tuple[str, str], ru_noun: str, request: tuple[str, str]) -> Phrases:
    """deploy/migrate: "{verb} dashboard 7 from dev to prod" (a request with its mapping)."""
    text = on_dashboards(doing, ru_noun, request, tail="{source}{target}", request_tail="{mapping}")

    def phrases(s: Slots) -> Texts:
        mapping = s.args.get("database_mapping") or {}
        m = ", ".join(f"{k} -> {v}" for k, v in mapping.items())
        return phrased(
            text,
            s,
            source=s.both("source_env", "from", "с"),
            target=s.both("target_env", "to", "на"),
            mapping=(f" map {m}", f" маппинг {m}") if m else "",
        )

    return phrases


# --- answers ------------------------------------------------------------------------------
#: this family's answer sentences, (English, Russian) with the same placeholders, said by _say
SAID: dict[str, tuple[str, str]] = {
    "dashboard_noun": ("dashboard", "дашборд"),
    "deployed": (
        "Deployed {label} from {source} to {target} (#{target_id} on {target}, {how}).",
        "Задеплоил {label} с {source} на {target} (#{target_id} на {target}, {how}).",
    ),
    "deployed_created": ("created there", "создан там"),
    "deployed_overwritten": ("the copy there overwritten", "копия там перезаписана"),
    "migrated": (
        "Migrated {n} from {source} to {target}: {made} created, {over} overwritten.",
        "Перенёс {n} с {source} на {target}: создано — {made}, перезаписано — {over}.",
    ),
    "verified": ("Verified on the target.", "Проверено на целевом окружении."),
}


_say = sayer(SAID)


def _moved(result: Result) -> tuple[list[dict[str, Any]], dict[str, int]]:
    dashboards = [d for d in result.items("dashboards") if isinstance(d, dict)]
    actions: dict[str, int] = {}
    for d in dashboards:
        actions[str(d.get("action") or "")] = actions.get(str(d.get("action") or ""), 0) + 1
    return dashboards, actions


def _verified(result: Result, lang: Lang) -> str:
    """Whether the target was checked ("unverified" is the catalog's: a restore says it too)."""
    if result.get("verified") is False:
        return " " + say("unverified", lang)
    return " " + _say("verified", lang)


def _deployed(args: dict[str, Any], result: Result, lang: Lang) -> str:
    dashboards, _ = _moved(result)
    first = dashboards[0] if dashboards else {}
    title = first.get("title")
    noun = _say("dashboard_noun", lang)
    label = quote(title, lang) if title else f"{noun} {md_escape(args.get('dashboard_id', '?'))}"
    created = (result.get("action") or first.get("action")) == "created"
    return _say(
        "deployed",
        lang,
        label=label,
        source=named(result, args, "source_env"),
        target=named(result, args, "target_env"),
        target_id=md_escape(result.get("dashboard_id") or first.get("target_id") or "?"),
        how=_say("deployed_created" if created else "deployed_overwritten", lang),
    ) + _verified(result, lang)


def _migrated(args: dict[str, Any], result: Result, lang: Lang) -> str:
    dashboards, actions = _moved(result)
    return _say(
        "migrated",
        lang,
        n=count_of(len(dashboards), DASHBOARDS, lang),
        source=named(result, args, "source_env"),
        target=named(result, args, "target_env"),
        made=actions.get("created", 0),
        over=actions.get("overwritten", 0),
    ) + _verified(result, lang)


# --- the tools ----------------------------------------------------------------------------
TOOLS = (
    ToolKnowledge(
        "deploy_dashboard",
        rows=(
            row(
                140,
                [
                    r"\b(?:deploy\w*|promote\w*|publish\w*|ship|release(?=\s|$)|roll\s*out)\b",
                    r"\bpush\b.{0,30}\bto\b",
                    r"задепло\w*|деплой\w*|депло\w*|разверн\w*|разверт\w*|выкат\w*|опубликуй\w*"
                    r"|продвин\w*",
                ],
            ),
        ),
        read_args=_deploy_args,
        required=("dashboard_id", "target_env"),
        phrase=_moved_said(("deploying", "деплою"), "деплой", ("deploy", "задеплой")),
        report=_deployed,
        need=Need("dashboard", "dashboard_id", env_arg="source_env"),
    ),
    ToolKnowledge(
        "execute_migration",
        rows=(
            row(
                130,
                [
                    r"\bmigrat\w*|\b(?:move|copy)\b.{0,30}\bdashboards\b",
                    r"мигр\w*|перенес\w*|перенос\w*|перенест\w*|скопир\w*",
                ],
            ),
        ),
        read_args=_migration_args,
        required=("dashboard_ids", "target_env"),
        phrase=_moved_said(("migrating", "мигрирую"), "миграцию", ("migrate", "мигрируй")),
        report=_migrated,
        need=Need("dashboard", "dashboard_ids", env_arg="source_env"),
    ),
)
