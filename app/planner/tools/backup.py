"""The offline planner's knowledge of the backup tools: taking a backup, listing them (the
lookup of a backup named by the first characters of its id), restoring one. Internal
paths are never said; long ids are shortened ("abf01234…") and the way back is offered as
a request ("say “restore backup abf01234” to bring it back")."""

from __future__ import annotations

import re
from typing import Any

from app.planner.knowledge import LookupRole, Need, ToolKnowledge, row
from app.planner.labels import backup_label, env_in, named, way_back
from app.planner.markup import md_escape, short_id
from app.planner.matches import backup_named
from app.planner.numbers import Noun, count_of, counted
from app.planner.phrases import say, sayer
from app.planner.request import Request
from app.planner.results import Result
from app.planner.slots import CallText, Slots, Texts, phrased
from app.planner.text import Lang

_BACKUP = r"(?:back[\s-]?ups?|snapshots?|бэкап\w*|бекап\w*|резервн\w*\s+копи\w*|забэкап\w*)"
BACKUPS = Noun(("backup", "backups"), ("бэкап", "бэкапа", "бэкапов"))
DASHBOARDS = Noun(("dashboard", "dashboards"), ("дашборд", "дашборда", "дашбордов"))


# --- reading ------------------------------------------------------------------------------
def _list_args(req: Request) -> dict[str, Any]:
    refs, from_ctx = req.dashboards(required=False)
    return {
        "env_id": req.env_id(object_from_context=from_ctx),
        "dashboard_id": refs[0] if refs else None,
    }


def _run_args(req: Request) -> dict[str, Any]:
    refs, from_ctx = req.dashboards(required=False)
    return {"env_id": req.env_id(object_from_context=from_ctx), "dashboard_ids": refs or None}


# The id after "backup": with a digit within its first 64 characters, or four or more
# hex digits (an id has 32). Blanks are taken whole, and a Russian ending is letters only
# and at most 30 of them (its digits would be the id), so one attempt reads one id.
_ID_AHEAD = r"(?=[\w:.-]{0,64}\d|[0-9a-f]{4,64}\b)"
_BACKUP_ID = re.compile(
    r"(?:back[\s-]?up|snapshot|бэкап[^\W\d]{0,30}+|бекап[^\W\d]{0,30}+|копи[^\W\d]{0,30}+)"
    r"\s*+(?:id\s*+)?[#№:]?\s*+" + _ID_AHEAD + r"([A-Za-z0-9][\w:.-]*+)",
    re.IGNORECASE,
)
_SHORT_ID = re.compile(r"(?<![\w.-])(?=[\w.:-]{0,64}\d)[A-Za-z0-9][\w.:-]{2,}+")


def _restore_args(req: Request) -> dict[str, Any]:
    """The backup id as typed: a full id, or a short one ("3", "abf0…") that the planner
    looks up in the backup list before restoring."""
    m = _BACKUP_ID.search(req.scan)
    backup_id = m.group(1).rstrip(".:") if m else None
    if backup_id is None:
        ids = _SHORT_ID.findall(req.scan)
        backup_id = ids[0] if ids else (req.quoted[0] if req.quoted else None)
    return {"backup_id": backup_id, "env_id": req.mentioned_env()}


# --- the lookup: a backup named by the first characters of its id ---------------------------
FULL_BACKUP_ID = re.compile(
    r"[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE
)


def _short_id(req: Request, args: dict[str, Any], need: Need) -> str | None:
    ref = str(args.get(need.slot) or "")
    return None if not ref or FULL_BACKUP_ID.fullmatch(ref) else ref


LOOKUP = LookupRole(
    kind="backup",
    ref=_short_id,
    args=lambda ref, env: {"env_id": env} if env else {},
    resolve=backup_named,
    ident=lambda item: str(item.get("backup_id")),
    label=backup_label,
)

# --- saying a call ------------------------------------------------------------------------
_RUN = CallText(
    doing=("backing up{of}{env}", "делаю бэкап{of}{env}"),
    ru_noun="бэкап{of}{env}",
    request=("back up{of}{env}", "сделай бэкап{of}{env}"),
)
_RUN_EVERYTHING = CallText(
    doing=("backing up the environment", "делаю бэкап"),
    ru_noun="бэкап",
    request=("back up everything", "сделай бэкап"),
)


def _run_said(s: Slots) -> Texts:
    if not (s.args.get("dashboard_ids") or s.v("env_id")):
        return phrased(_RUN_EVERYTHING, s)
    return phrased(_RUN, s, of=s.of_dash("dashboard_ids", "", ""))


_RESTORE = CallText(
    doing=("restoring backup {backup}{env}", "восстанавливаю бэкап {backup}{env}"),
    ru_noun="восстановление бэкапа {backup}{env}",
    request=("restore backup {backup}{env}", "восстанови бэкап {backup}{env}"),
)


def _restore_said(s: Slots) -> Texts:
    backup = s.v("backup_id")
    if not s.raw:  # in sentences a long id reads better shortened
        backup = short_id(backup)
    return phrased(_RESTORE, s, backup=backup, env=s.both("env_id", "into", "на"))


_LIST = CallText(
    doing=("listing the backups{of}{env}", "показываю бэкапы{of}{env}"),
    ru_noun="список бэкапов",
    request=("list backups{of}{env}", "покажи бэкапы{of}{env}"),
)


# --- answers ------------------------------------------------------------------------------
#: this family's answer sentences, (English, Russian) with the same placeholders, said by _say
SAID: dict[str, tuple[str, str]] = {
    "backups_none": ("There are no backups{env} yet.", "Бэкапов{env} пока нет."),
    "backups": ("{n}{env}; the newest is {newest}.", "{n}{env}; самый свежий — {newest}."),
    "backed_up": (
        "Backed up {n} ({charts} charts) of {env} as backup {backup}; "
        "{way_back} to bring them back.",
        "Сделал бэкап {env}: {n} (графиков — {charts}), бэкап {backup}; чтобы вернуть, {way_back}.",
    ),
    "restored": (
        "Restored backup {backup} into {target}: {made} created, {over} overwritten.",
        "Восстановил бэкап {backup} на {target}: "
        "дашбордов создано — {made}, перезаписано — {over}.",
    ),
}


_say = sayer(SAID)


def _listed(args: dict[str, Any], result: Result, lang: Lang) -> str:
    total = result.total("backups") or int(result.get("count") or 0)
    env = env_in(result.get("env_id") or args.get("env_id"), lang)
    if not total:
        return _say("backups_none", lang, env=env)
    items = result.items("backups")
    newest = backup_label(items[0], lang) if items else "?"
    return _say("backups", lang, n=count_of(total, BACKUPS, lang), env=env, newest=newest)


def _backed_up(args: dict[str, Any], result: Result, lang: Lang) -> str:
    backup = result.get("backup_id") or "?"
    return _say(
        "backed_up",
        lang,
        n=count_of(int(result.get("dashboard_count") or 0), DASHBOARDS, lang),
        charts=int(result.get("chart_count") or 0),
        env=named(result, args, "env_id"),
        backup=md_escape(short_id(backup)),
        way_back=way_back(backup, lang),
    )


def _restored(args: dict[str, Any], result: Result, lang: Lang) -> str:
    actions = [str(d.get("action")) for d in result.items("dashboards") if isinstance(d, dict)]
    text = _say(
        "restored",
        lang,
        backup=md_escape(short_id(result.get("backup_id") or args.get("backup_id") or "?")),
        target=named(result, args, "target_env", "env_id"),
        made=counted(actions.count("created"), ("dashboard", "dashboards"), lang),
        over=actions.count("overwritten"),
    )
    if result.get("verified") is False:
        text += " " + say("unverified", lang)
    return text


# --- the tools ----------------------------------------------------------------------------
TOOLS = (
    ToolKnowledge(
        "run_backup",
        rows=(
            # no tool deletes a backup: "delete backup X" must not become "take a backup"
            row(
                50,
                [
                    r"\b(?:delete|remove|drop|erase|purge)\b.{0,20}" + _BACKUP,
                    r"(?:удал|снес|снест|убер|стер|сотр)\w*.{0,20}" + _BACKUP,
                ],
                no_tool=True,
            ),
            row(90, [_BACKUP, r"\bback\s+(?:\w+\s+)?up\b"]),
        ),
        read_args=_run_args,
        phrase=_run_said,
        report=_backed_up,
        need=Need("dashboard", "dashboard_ids", required=False),
    ),
    ToolKnowledge(
        "list_backups",
        rows=(
            row(
                80,
                [
                    r"\b(?:list|show|which|what|available|all|existing|get)\b.{0,25}" + _BACKUP,
                    r"\b(?:are\s+there|is\s+there|do\s+we\s+have)\b.{0,15}" + _BACKUP,
                    _BACKUP + r"\s+(?:list|available)",
                    r"(?:список|покажи|какие|все|перечисли|выведи|есть\s+ли|имеющи\w*|провер\w*)\W+"
                    r"(?:\w+\W+){0,3}?" + _BACKUP,
                    r"\bcheck\b.{0,15}" + _BACKUP,
                ],
            ),
        ),
        read_args=_list_args,
        phrase=lambda s: phrased(_LIST, s, of=s.of_dash("dashboard_id", "of", "")),
        report=_listed,
        need=Need("dashboard", "dashboard_id", required=False),
        lookup=LOOKUP,
    ),
    ToolKnowledge(
        "restore_backup",
        rows=(
            row(
                70,
                [
                    r"\b(?:restore|roll\s*back|recover)\w*",
                    # "roll prod back to …", "revert staging to the backup …"
                    r"\broll\s+(?:\w+\s+){1,3}back\b",
                    r"\brevert\w*.{0,30}" + _BACKUP,
                    r"восстанов\w*|откат\w*|откати\w*",
                    r"верн\w*.{0,30}" + _BACKUP,
                ],
            ),
        ),
        read_args=_restore_args,
        required=("backup_id",),
        phrase=_restore_said,
        report=_restored,
        need=Need("backup", "backup_id"),
    ),
)
