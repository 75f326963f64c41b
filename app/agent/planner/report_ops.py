"""One- or two-sentence answers for the operations tools: delete, backups, restore, tasks,
maintenance, git and environments. Internal paths and repository locations are never
said; long ids are shortened ("abf01234…") and the way back is offered as a request
("say “restore backup abf01234” to bring it back")."""

from __future__ import annotations

from typing import Any

from app.agent.planner.labels import backup_label, dashboard_label, env_in, named, when
from app.agent.planner.numbers import plural
from app.agent.planner.phrases import tr
from app.agent.planner.results import Result
from app.agent.planner.text import Lang
from app.i18n import catalog
from app.markup import id_prefix, md_escape, quote, short_id

BACKUPS_RU = ("бэкап", "бэкапа", "бэкапов")
DASHBOARDS_RU = ("дашборд", "дашборда", "дашбордов")


def _way_back(backup_id: Any, lang: Lang) -> str:
    prefix = md_escape(id_prefix(backup_id))
    return tr(lang, f"say “restore backup {prefix}”", f"скажите «восстанови бэкап {prefix}»")


def delete(args: dict[str, Any], result: Result, lang: Lang) -> str:
    label = dashboard_label(result.get("deleted"), lang, args.get("dashboard_id"))
    env = named(result, args, "env_id")
    backup = result.get("backup_id")
    text = tr(lang, f"Deleted {label} from {env}.", f"Удалил {label} с {env}.")
    if backup:
        b = md_escape(short_id(backup))
        text += tr(
            lang,
            f" Backup {b} was taken first; {_way_back(backup, lang)} to bring it back.",
            f" Перед этим сделан бэкап {b}; чтобы вернуть дашборд, {_way_back(backup, lang)}.",
        )
    return text


def list_backups(args: dict[str, Any], result: Result, lang: Lang) -> str:
    total = result.total("backups") or int(result.get("count") or 0)
    env = env_in(result.get("env_id") or args.get("env_id"), lang)
    if not total:
        return tr(lang, f"There are no backups{env} yet.", f"Бэкапов{env} пока нет.")
    n = plural(total, BACKUPS_RU if lang == "ru" else ("backup", "backups"), lang)
    items = result.items("backups")
    newest = backup_label(items[0], lang) if items else "?"
    return tr(lang, f"{n}{env}; the newest is {newest}.", f"{n}{env}; самый свежий — {newest}.")


def run_backup(args: dict[str, Any], result: Result, lang: Lang) -> str:
    backup = result.get("backup_id") or "?"
    env = named(result, args, "env_id")
    count = int(result.get("dashboard_count") or 0)
    charts = int(result.get("chart_count") or 0)
    n = plural(count, DASHBOARDS_RU if lang == "ru" else ("dashboard", "dashboards"), lang)
    b = md_escape(short_id(backup))
    return tr(
        lang,
        f"Backed up {n} ({charts} charts) of {env} as backup {b}; "
        f"{_way_back(backup, lang)} to bring them back.",
        f"Сделал бэкап {env}: {n} (графиков — {charts}), бэкап {b}; "
        f"чтобы вернуть, {_way_back(backup, lang)}.",
    )


def restore(args: dict[str, Any], result: Result, lang: Lang) -> str:
    b = md_escape(short_id(result.get("backup_id") or args.get("backup_id") or "?"))
    target = named(result, args, "target_env", "env_id")
    actions = [str(d.get("action")) for d in result.items("dashboards") if isinstance(d, dict)]
    made, over = actions.count("created"), actions.count("overwritten")
    text = tr(
        lang,
        f"Restored backup {b} into {target}: {plural(made, ('dashboard', 'dashboards'), lang)} "
        f"created, {over} overwritten.",
        f"Восстановил бэкап {b} на {target}: дашбордов создано — {made}, перезаписано — {over}.",
    )
    if result.get("verified") is False:
        text += tr(
            lang,
            " Some were not verified: check them in Superset.",
            " Не всё подтвердилось: проверьте в Superset.",
        )
    return text


_STATUS: dict[str, tuple[str, str]] = {
    "queued": ("is queued", "в очереди"),
    "running": ("is running", "выполняется"),
    "succeeded": ("finished", "завершена"),
    "failed": ("failed", "завершилась ошибкой"),
    "interrupted": (
        "was interrupted (the server restarted); check Superset before retrying",
        "прервана (сервер перезапускался); проверьте Superset, прежде чем повторять",
    ),
}


def _task(task: dict[str, Any], lang: Lang) -> str:
    status = str(task.get("status") or "")
    state = tr(lang, *_STATUS.get(status, (status, status)))
    kind = md_escape(task.get("kind") or tr(lang, "task", "задача"))
    what = f"{kind}{env_in(task.get('env_id'), lang)}"
    text = tr(
        lang,
        f"Task {md_escape(short_id(task.get('task_id', '?')))} ({what}) {state}",
        f"Задача {md_escape(short_id(task.get('task_id', '?')))} ({what}) {state}",
    )
    if status == "running" and task.get("total"):
        text += tr(
            lang,
            f": step {task.get('step')} of {task.get('total')}",
            f": шаг {task.get('step')} из {task.get('total')}",
        )
    if status == "failed" and task.get("error"):
        text += f": {md_escape(str(task['error'])[:200])}"
    return text + "."


_COUNTED = catalog("planner_task_states")


def tasks(args: dict[str, Any], result: Result, lang: Lang) -> str:
    if isinstance(result.get("task"), dict):
        return _task(result.get("task"), lang)
    items = [t for t in result.items("tasks") if isinstance(t, dict)]
    if not items:
        return tr(lang, "You have no recent tasks.", "Недавних задач у вас нет.")
    counts: dict[str, int] = {}
    for t in items:
        counts[str(t.get("status"))] = counts.get(str(t.get("status")), 0) + 1
    parts = ", ".join(
        f"{md_escape(tr(lang, *_COUNTED.get(s, (s, s))))} — {n}" for s, n in counts.items()
    )
    head = tr(
        lang,
        f"Your recent tasks ({len(items)}): {parts}.",
        f"Ваши недавние задачи ({len(items)}): {parts}.",
    )
    return f"{head} {tr(lang, 'Latest', 'Последняя')}: {_task(items[0], lang)}"


def start_maintenance(args: dict[str, Any], result: Result, lang: Lang) -> str:
    env = named(result, args, "env_id")
    ends = result.get("ends_at")
    until = (
        tr(lang, f"until {when(ends)} UTC", f"до {when(ends)} UTC")
        if ends
        else tr(lang, "until you end it", "до вашей команды")
    )
    reason = result.get("reason")
    why = f" ({md_escape(reason)})" if reason else ""
    return tr(
        lang,
        f"{env} is in maintenance {until}{why}: changes there are refused.",
        f"{env} в режиме обслуживания {until}{why}: изменения там запрещены.",
    )


def end_maintenance(args: dict[str, Any], result: Result, lang: Lang) -> str:
    env = named(result, args, "env_id")
    return tr(
        lang,
        f"Maintenance on {env} has ended; changes are allowed again.",
        f"Обслуживание {env} завершено; изменения снова разрешены.",
    )


def create_branch(args: dict[str, Any], result: Result, lang: Lang) -> str:
    branch = named(result, args, "branch")
    start = md_escape(result.get("from") or "?")
    scope = [md_escape(d) for d in result.items("dashboards")]
    env = env_in(result.get("env_id"), lang)
    for_en = f", for dashboard {', '.join(scope)}{env}" if scope else ""
    for_ru = f", для дашборда {', '.join(scope)}{env}" if scope else ""
    return tr(
        lang,
        f"Created branch {branch} from {start} and switched to it{for_en}.",
        f"Создал ветку {branch} от {start} и переключился на неё{for_ru}.",
    )


def commit(args: dict[str, Any], result: Result, lang: Lang) -> str:
    if result.get("committed") is False:
        return tr(
            lang,
            "Nothing to commit: the repository already holds these dashboards as exported.",
            "Коммитить нечего: в репозитории уже лежат эти дашборды в том же виде.",
        )
    msg = quote(args.get("message") or result.get("message") or "", lang)
    branch = named(result, args, "branch")
    sha = md_escape(str(result.get("sha") or "")[:7])
    files = result.total("files_changed")
    dashboards = result.total("dashboards")
    return tr(
        lang,
        f"Committed {msg} to {branch} as {sha}: {plural(files, ('file', 'files'), lang)}, "
        f"{plural(dashboards, ('dashboard', 'dashboards'), lang)}.",
        f"Закоммитил {msg} в {branch} ({sha}): файлов — {files}, дашбордов — {dashboards}.",
    )


def environments(args: dict[str, Any], result: Result, lang: Lang) -> str:
    envs = [e for e in result.items("environments") if isinstance(e, dict)]
    if not envs:
        return tr(
            lang, "No Superset environment is configured.", "Окружения Superset не настроены."
        )
    names = ", ".join(md_escape(e.get("id")) for e in envs)
    text = tr(lang, f"{len(envs)} environments: {names}.", f"Окружений — {len(envs)}: {names}.")
    maint = [md_escape(e.get("id")) for e in envs if e.get("in_maintenance")]
    down = [md_escape(e.get("id")) for e in envs if e.get("reachable") is False or e.get("error")]
    if maint:
        text += tr(
            lang, f" In maintenance: {', '.join(maint)}.", f" На обслуживании: {', '.join(maint)}."
        )
    if down:
        text += tr(lang, f" Not reachable: {', '.join(down)}.", f" Недоступны: {', '.join(down)}.")
    return text
