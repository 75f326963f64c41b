"""One- or two-sentence answers for the operations tools: delete, backups, restore, tasks,
maintenance, git and environments. Internal paths and repository locations are never
said; long ids are shortened ("abf01234…") and the way back is offered as a request
("say “restore backup abf01234” to bring it back")."""

from __future__ import annotations

from typing import Any

from app.i18n import catalog
from app.planner.labels import backup_label, dashboard_label, env_in, named, when
from app.planner.markup import id_prefix, md_escape, quote, short_id
from app.planner.numbers import plural
from app.planner.phrases import pick, say
from app.planner.results import Result
from app.planner.text import Lang

BACKUPS_RU = ("бэкап", "бэкапа", "бэкапов")
DASHBOARDS_RU = ("дашборд", "дашборда", "дашбордов")
_STATUS = catalog("planner_task_status")
_COUNTED = catalog("planner_task_states")


def _way_back(backup_id: Any, lang: Lang) -> str:
    return say("way_back", lang, prefix=md_escape(id_prefix(backup_id)))


def _counted(count: int, forms: tuple[str, str], lang: Lang) -> str | int:
    """English counts with the noun ("2 dashboards"); Russian names the noun before the
    number in these sentences ("дашбордов — 2")."""
    return count if lang == "ru" else plural(count, forms, lang)


def delete(args: dict[str, Any], result: Result, lang: Lang) -> str:
    label = dashboard_label(result.get("deleted"), lang, args.get("dashboard_id"))
    text = say("deleted", lang, label=label, env=named(result, args, "env_id"))
    if backup := result.get("backup_id"):
        b, back = md_escape(short_id(backup)), _way_back(backup, lang)
        text += " " + say("deleted_backup_first", lang, backup=b, way_back=back)
    return text


def list_backups(args: dict[str, Any], result: Result, lang: Lang) -> str:
    total = result.total("backups") or int(result.get("count") or 0)
    env = env_in(result.get("env_id") or args.get("env_id"), lang)
    if not total:
        return say("backups_none", lang, env=env)
    n = plural(total, BACKUPS_RU if lang == "ru" else ("backup", "backups"), lang)
    items = result.items("backups")
    newest = backup_label(items[0], lang) if items else "?"
    return say("backups", lang, n=n, env=env, newest=newest)


def run_backup(args: dict[str, Any], result: Result, lang: Lang) -> str:
    backup = result.get("backup_id") or "?"
    count = int(result.get("dashboard_count") or 0)
    return say(
        "backed_up",
        lang,
        n=plural(count, DASHBOARDS_RU if lang == "ru" else ("dashboard", "dashboards"), lang),
        charts=int(result.get("chart_count") or 0),
        env=named(result, args, "env_id"),
        backup=md_escape(short_id(backup)),
        way_back=_way_back(backup, lang),
    )


def restore(args: dict[str, Any], result: Result, lang: Lang) -> str:
    actions = [str(d.get("action")) for d in result.items("dashboards") if isinstance(d, dict)]
    text = say(
        "restored",
        lang,
        backup=md_escape(short_id(result.get("backup_id") or args.get("backup_id") or "?")),
        target=named(result, args, "target_env", "env_id"),
        made=_counted(actions.count("created"), ("dashboard", "dashboards"), lang),
        over=actions.count("overwritten"),
    )
    if result.get("verified") is False:
        text += " " + say("restored_unverified", lang)
    return text


def _task(task: dict[str, Any], lang: Lang) -> str:
    status = str(task.get("status") or "")
    kind = md_escape(task.get("kind") or say("task_kind", lang))
    text = say(
        "task",
        lang,
        task_id=md_escape(short_id(task.get("task_id", "?"))),
        what=f"{kind}{env_in(task.get('env_id'), lang)}",
        state=pick(_STATUS.get(status, (status, status)), lang),
    )
    if status == "running" and task.get("total"):
        text += ": " + say("task_step", lang, step=task.get("step"), total=task.get("total"))
    if status == "failed" and task.get("error"):
        text += f": {md_escape(str(task['error'])[:200])}"
    return text + "."


def tasks(args: dict[str, Any], result: Result, lang: Lang) -> str:
    if isinstance(result.get("task"), dict):
        return _task(result.get("task"), lang)
    items = [t for t in result.items("tasks") if isinstance(t, dict)]
    if not items:
        return say("tasks_none", lang)
    counts: dict[str, int] = {}
    for t in items:
        counts[str(t.get("status"))] = counts.get(str(t.get("status")), 0) + 1
    parts = ", ".join(
        f"{md_escape(pick(_COUNTED.get(s, (s, s)), lang))} — {n}" for s, n in counts.items()
    )
    return say("tasks", lang, count=len(items), parts=parts, latest=_task(items[0], lang))


def start_maintenance(args: dict[str, Any], result: Result, lang: Lang) -> str:
    ends = result.get("ends_at")
    until = (
        say("maintenance_until", lang, ends=when(ends))
        if ends
        else say("maintenance_until_ended", lang)
    )
    reason = result.get("reason")
    why = f" ({md_escape(reason)})" if reason else ""
    env = named(result, args, "env_id")
    return say("maintenance_started", lang, env=env, until=until, why=why)


def end_maintenance(args: dict[str, Any], result: Result, lang: Lang) -> str:
    return say("maintenance_ended", lang, env=named(result, args, "env_id"))


def create_branch(args: dict[str, Any], result: Result, lang: Lang) -> str:
    dashboards = [md_escape(d) for d in result.items("dashboards")]
    env = env_in(result.get("env_id"), lang)
    scope = say("branch_for", lang, dashboards=", ".join(dashboards), env=env) if dashboards else ""
    return say(
        "branch_created",
        lang,
        branch=named(result, args, "branch"),
        start=md_escape(result.get("from") or "?"),
        scope=scope,
    )


def commit(args: dict[str, Any], result: Result, lang: Lang) -> str:
    if result.get("committed") is False:
        return say("commit_nothing", lang)
    return say(
        "committed",
        lang,
        message=quote(args.get("message") or result.get("message") or "", lang),
        branch=named(result, args, "branch"),
        sha=md_escape(str(result.get("sha") or "")[:7]),
        files=_counted(result.total("files_changed"), ("file", "files"), lang),
        dashboards=_counted(result.total("dashboards"), ("dashboard", "dashboards"), lang),
    )


def environments(args: dict[str, Any], result: Result, lang: Lang) -> str:
    envs = [e for e in result.items("environments") if isinstance(e, dict)]
    if not envs:
        return say("environments_none", lang)
    names = ", ".join(md_escape(e.get("id")) for e in envs)
    text = say("environments", lang, count=len(envs), names=names)
    maint = [md_escape(e.get("id")) for e in envs if e.get("in_maintenance")]
    down = [md_escape(e.get("id")) for e in envs if e.get("reachable") is False or e.get("error")]
    if maint:
        text += " " + say("environments_maintenance", lang, names=", ".join(maint))
    if down:
        text += " " + say("environments_down", lang, names=", ".join(down))
    return text
