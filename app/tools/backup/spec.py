"""Backup tools' specs: run_backup, list_backups, restore_backup.
(Implementations and what a backup is: ``run.py`` beside it.)

Listing is open to every role; taking and restoring a backup are admin-only. None fits a
page context. The restore is "the tool that brings a backup back" (``serves``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.tools.args import EnvArgs, Ru, ToolArgs, arg, env_field, optional
from app.tools.declare import ADMINS, Family, which_dashboards
from app.vocab import Lang

family = Family("backup")


class ListBackupsArgs(EnvArgs):
    dashboard_id: str | None = optional(
        "Only backups of this dashboard (id or slug).",
        Ru("Дашборд", "Только резервные копии этого дашборда (id или slug)."),
    )


class RunBackupArgs(EnvArgs):
    dashboard_ids: list[str] = arg(
        "Dashboards to back up; empty backs up all of them.",
        Ru("Дашборды", "Какие дашборды сохранить; пусто — все."),
        default_factory=list,
    )


class RestoreBackupArgs(ToolArgs):
    backup_id: str = arg(
        "Id of the backup to restore.",
        Ru("Резервная копия", "Id резервной копии, которую восстановить."),
        min_length=1,
    )
    env_id: str | None = env_field(
        "Environment to restore into; omit to restore into the backup's own env.",
        "Куда восстановить; пусто — в окружение самой копии.",
    )


def _which(args: Mapping[str, Any], lang: Lang) -> dict[str, str]:
    return {"what": which_dashboards(args, lang)}


run_backup = family.spec(
    "run_backup", RunBackupArgs, "write", card_values=_which, roles=ADMINS, long_task=True,
    description="""Exports dashboards of one environment into a stored backup (all
    dashboards when none are named), as a long-running task. Use before risky changes.
    Needs confirmation. Returns the backup id, its file name and the task id.""",
    en=("back up an environment", "Back up the dashboards in prod", "Back up {what} in {env}"),
    ru=("сделать бэкап окружения", "Сделай бэкап дашбордов на проде",
        "Сделать резервную копию: {what} в {env}"),
)  # fmt: skip

list_backups = family.spec(
    "list_backups", ListBackupsArgs, "read", finds="backup", open_world=False,
    description="""Lists stored backups (id, environment, dashboards, created_at, size),
    newest first, of one environment (every environment when none is named or selected),
    optionally only those holding one dashboard. Use before restoring or to confirm a
    backup exists. Returns the backups.""",
    en=("list backups", "List the latest backups", "List backups in {env}"),
    ru=("показать бэкапы", "Покажи последние бэкапы", "Показать резервные копии в {env}"),
)  # fmt: skip

restore_backup = family.spec(
    "restore_backup", RestoreBackupArgs, "delete", roles=ADMINS, serves="restore",
    presentation="diff", long_task=True, idempotent=True,
    description="""Restores a stored backup into an environment (its own unless `env_id` is
    given), overwriting the dashboards it contains. Dangerous: current versions are
    replaced. Use only when the user asks to roll back. Needs confirmation after a
    countdown. Returns a task id and what was restored.""",
    en=("restore a backup", "Restore yesterday's backup",
        "Restore backup {backup_id} into {env}, overwriting dashboards"),
    ru=("восстановить бэкап", "Восстанови вчерашний бэкап",
        "Восстановить резервную копию {backup_id} в {env} с перезаписью дашбордов"),
    undo="undoable",  # what it overwrote is exported first and restored
)  # fmt: skip
