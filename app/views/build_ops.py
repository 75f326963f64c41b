"""View builders of the operations tools: backups, tasks, migrations (results and
preflights), deletes, maintenance, git, and the fallbacks by presentation kind."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.views import models as vm
from app.views.cells import Links, cell, dict_table, hidden_key, without_paths

Builder = Callable[[Mapping[str, Any], Links], vm.ToolView | None]
DIFF_KINDS = (("dashboards", "dashboard"), ("charts", "chart"), ("datasets", "dataset"),
              ("databases", "database"))  # fmt: skip
_PAST = {"created": "create", "overwritten": "overwrite", "skipped": "skip"}
_QUIET_KEYS = {"message", "summary", "note", "uuid"}


def facts(result: Mapping[str, Any], links: Links, keys: tuple[str, ...] = ()) -> vm.FactsView:
    """Top-level scalars as facts (``keys`` first and only, when given); never a path."""
    wanted = keys or tuple(k for k in result if k not in _QUIET_KEYS)
    out = []
    for key in wanted:
        value = result.get(key)
        if hidden_key(key) or value is None or value == "" or isinstance(value, Mapping | list):
            continue
        url = value if key == "url" and str(value).startswith(("http://", "https://")) else None
        out.append(vm.Fact(key=key, value=cell(value), url=url))
    return vm.FactsView(facts=out)


# ---- backups ---------------------------------------------------------------------------
def list_backups(result: Mapping[str, Any], links: Links) -> vm.TableView:
    keys = ("backup_id", "env_id", "dashboards", "created_at", "created_by", "size_bytes", "note")
    return dict_table(result.get("backups") or [], keys, csv_name="backups")


def run_backup(result: Mapping[str, Any], links: Links) -> vm.FactsView:
    keys = ("backup_id", "env_id", "dashboard_count", "chart_count", "size_bytes", "created_at",
            "task_id")  # fmt: skip
    return facts(result, links, keys)


def delete_dashboard(result: Mapping[str, Any], links: Links) -> vm.FactsView:
    deleted = result.get("deleted") or {}
    flat = {
        "deleted": deleted.get("title"),
        "dashboard_id": deleted.get("id"),
        "env_id": result.get("env_id"),
        "backup_id": result.get("backup_id"),
        "task_id": result.get("task_id"),
    }
    return facts(flat, links, tuple(flat))


def create_dataset(result: Mapping[str, Any], links: Links) -> vm.FactsView:
    flat = {
        "dataset": result.get("table_name"),
        "id": result.get("id"),
        "kind": result.get("kind"),
        "database": result.get("database"),
        "schema": result.get("schema"),
        "env": result.get("env"),
    }
    view = facts(flat, links, tuple(flat))
    url = links.dataset(result.get("id"))
    return vm.FactsView(
        facts=[f.model_copy(update={"url": url}) if f.key == "dataset" else f for f in view.facts]
    )


def maintenance(result: Mapping[str, Any], links: Links) -> vm.FactsView:
    keys = ("env_id", "active", "reason", "started_by", "started_at", "ends_at", "ended_at",
            "ended_by")  # fmt: skip
    return facts(result, links, keys)


# ---- tasks -------------------------------------------------------------------------------
def _task(row: Mapping[str, Any]) -> vm.TaskRow:
    return vm.TaskRow(
        task_id=str(row.get("task_id") or ""),
        kind=str(row.get("kind") or ""),
        status=str(row.get("status") or ""),
        step=row.get("step") if isinstance(row.get("step"), int) else None,
        total=row.get("total") if isinstance(row.get("total"), int) else None,
        message=without_paths(str(row.get("message") or "")),
        error=without_paths(str(row["error"])) if row.get("error") else None,
        env_id=row.get("env_id"),
        updated_at=row.get("updated_at"),
    )


def tasks(result: Mapping[str, Any], links: Links) -> vm.TasksView:
    rows = [result["task"]] if isinstance(result.get("task"), Mapping) else result.get("tasks")
    return vm.TasksView(tasks=[_task(r) for r in rows or [] if isinstance(r, Mapping)])


# ---- migrations, deploys and restores ----------------------------------------------------
def preflight_view(details: Mapping[str, Any] | None) -> vm.DiffView | None:
    """A migration's or deploy's preflight (the confirmation's ``details``) as a diff:
    every object of the bundle with what the run would do to it on the target."""
    if not isinstance(details, Mapping) or not any(
        isinstance(details.get(k), list) for k, _ in DIFF_KINDS
    ):
        return None
    target = details.get("target_env")
    mapping = details.get("database_mapping") or {}
    rows = []
    for key, kind in DIFF_KINDS:
        found = details.get(key)
        for r in found if isinstance(found, list) else []:
            if not isinstance(r, Mapping):
                continue
            name = str(r.get("name") or r.get("uuid") or "")
            if kind == "database" and isinstance(mapping, Mapping) and mapping.get(name):
                name = f"{name} → {mapping[name]}"
            rows.append(
                vm.DiffRow(object_type=kind, name=name, action=str(r.get("action")), target=target)
            )
    return vm.DiffView(
        source_env=details.get("source_env"),
        target_env=target,
        rows=rows,
        errors=[str(e) for e in details.get("errors") or []],
    )


def migration(result: Mapping[str, Any], links: Links) -> vm.DiffView:
    """What a finished migration, deploy or restore did on its target."""
    target = result.get("target_env")
    rows = [
        vm.DiffRow(
            object_type="dashboard",
            name=str(d.get("title") or d.get("slug") or d.get("target_id") or ""),
            action=_PAST.get(str(d.get("action")), str(d.get("action"))),
            target=target,
            url=links.dashboard(d.get("target_id")),
        )
        for d in result.get("dashboards") or []
        if isinstance(d, Mapping)
    ]
    counts = {
        kind: {str(a): int(n) for a, n in (result.get(key) or {}).items()}
        for key, kind in DIFF_KINDS[1:]
        if isinstance(result.get(key), Mapping)
    }
    return vm.DiffView(
        source_env=result.get("source_env"), target_env=target, rows=rows, counts=counts
    )


# ---- fallbacks by presentation kind -------------------------------------------------------
def first_table(result: Mapping[str, Any], links: Links) -> vm.TableView | None:
    for value in result.values():
        if isinstance(value, list) and value and all(isinstance(r, Mapping) for r in value):
            return dict_table(value, list(value[0]))
    return None


def linked_list(result: Mapping[str, Any], links: Links) -> vm.LinkedListView | None:
    table = first_table(result, links)
    if table is None:
        return None
    items = [
        vm.LinkedItem(title=str(row[0]), id=row[0] if isinstance(row[0], int | str) else None)
        for row in table.rows
        if row
    ]
    return vm.LinkedListView(object_type="object", items=items, total=len(items))


def text(result: Mapping[str, Any], links: Links) -> vm.TextView | None:
    for key in ("markdown", "text", "sql", "message"):
        if isinstance(result.get(key), str):
            return vm.TextView(text=without_paths(result[key]))
    return None


def diff(result: Mapping[str, Any], links: Links) -> vm.DiffView | None:
    return migration(result, links) if "dashboards" in result else preflight_view(result)


BY_TOOL: dict[str, Builder] = {
    "list_backups": list_backups,
    "run_backup": run_backup,
    "restore_backup": migration,
    "deploy_dashboard": migration,
    "execute_migration": migration,
    "delete_dashboard": delete_dashboard,
    "superset_create_dataset": create_dataset,
    "start_maintenance": maintenance,
    "end_maintenance": maintenance,
    "get_task_status": tasks,
}
BY_KIND: dict[str, Builder] = {
    "facts": facts,
    "table": first_table,
    "linked_list": linked_list,
    "tasks": tasks,
    "diff": diff,
    "text": text,
}
