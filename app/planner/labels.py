"""How objects are named in sentences: “Sales demo” (#7), backup abf01234…, " in prod",
and the way back to a backup ("say “restore backup abf01234”")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.planner.markup import id_prefix, md_escape, quote, short_id
from app.planner.phrases import say
from app.planner.results import Result
from app.planner.text import Lang


def dashboard_label(item: Any, lang: Lang, fallback_id: Any = None) -> str:
    """“Sales demo” (#7); "dashboard 7" when the title is unknown."""
    item = item if isinstance(item, dict) else {}
    ident = item.get("id", item.get("target_id", fallback_id))
    title = item.get("title") or item.get("dashboard_title")
    if title:
        return quote(title, lang) + (f" (#{md_escape(ident)})" if ident is not None else "")
    noun = "дашборд" if lang == "ru" else "dashboard"
    return f"{noun} {md_escape(ident)}" if ident is not None else noun


def named(result: Result, args: Mapping[str, Any], key: str, arg: str | None = None) -> str:
    """What the result says ``key`` is, else the call's ``arg`` (by default the same key),
    escaped; "?" when neither says."""
    return md_escape(result.get(key) or args.get(arg or key) or "?")


def env_in(env: Any, lang: Lang) -> str:
    """ " in prod" / " на prod" (empty when the env is unknown)."""
    if not env:
        return ""
    return f" на {md_escape(env)}" if lang == "ru" else f" in {md_escape(env)}"


def backup_label(item: Any, lang: Lang) -> str:
    """abf01234… (prod, 2026-02-01 10:00, all dashboards)."""
    item = item if isinstance(item, dict) else {}
    details = [str(item[k]) for k in ("env_id",) if item.get(k)]
    if created := item.get("created_at"):
        details.append(when(created))
    note = item.get("note")
    if note:
        details.append(str(note)[:60] + ("…" if len(str(note)) > 60 else ""))
    inner = f" ({md_escape(', '.join(details))})" if details else ""
    return md_escape(short_id(item.get("backup_id", "?"))) + inner


def when(stamp: Any) -> str:
    """An ISO timestamp as "2026-02-01 10:00" (UTC as stored)."""
    text = str(stamp).replace("T", " ")
    return text[:16] if len(text) >= 16 and text[4] == "-" else text


def dashboard_subject(label: str, lang: Lang) -> str:
    """A dashboard label at the start of a sentence: «Дашборд «Sales demo» (#7)» in
    Russian (the noun carries the grammar), the label itself in English."""
    if label.startswith(("dashboard", "дашборд")):
        return label[:1].upper() + label[1:]
    return f"Дашборд {label}" if lang == "ru" else label


def way_back(backup_id: Any, lang: Lang) -> str:
    """The request that brings a backup back, as a person types it."""
    return say("way_back", lang, prefix=md_escape(id_prefix(backup_id)))
