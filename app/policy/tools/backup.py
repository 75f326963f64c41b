"""Backup tools' specs: run_backup, list_backups, restore_backup.
(Implementations and what a backup is: ``app/agent/tools/backup.py``.)"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.policy.catalog import CardLine, Phrase
from app.policy.tools.base import EnvArgs, Ru, ToolArgs, arg, env_field
from app.policy.tools.declare import SpecFamily, which_dashboards
from app.vocab import Lang

family = SpecFamily("backup")


class ListBackupsArgs(EnvArgs):
    dashboard_id: str | None = arg(
        "Only backups of this dashboard (id or slug).",
        Ru("Дашборд", "Только резервные копии этого дашборда (id или slug)."),
        default=None,
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
    "run_backup",
    args=RunBackupArgs,
    risk="write",
    description="""Exports dashboards of one environment into a stored backup (all
    dashboards when none are named), as a long-running task. Use before risky changes.
    Needs confirmation. Returns the backup id, its file name and the task id.""",
    can=Phrase("back up an environment", "сделать бэкап окружения"),
    example=Phrase("Back up the dashboards in prod", "Сделай бэкап дашбордов на проде"),
    card=CardLine(en="Back up {what} in {env}", ru="Сделать резервную копию: {what} в {env}",
                  values=_which),
    long_task=True,
)  # fmt: skip

list_backups = family.spec(
    "list_backups",
    args=ListBackupsArgs,
    risk="read",
    description="""Lists stored backups (id, environment, dashboards, created_at, size),
    newest first, of one environment (every environment when none is named or selected),
    optionally only those holding one dashboard. Use before restoring or to confirm a
    backup exists. Returns the backups.""",
    can=Phrase("list backups", "показать бэкапы"),
    example=Phrase("List the latest backups", "Покажи последние бэкапы"),
    card=CardLine(en="List backups in {env}", ru="Показать резервные копии в {env}"),
    open_world=False,
)

restore_backup = family.spec(
    "restore_backup",
    args=RestoreBackupArgs,
    risk="delete",
    description="""Restores a stored backup into an environment (its own unless `env_id` is
    given), overwriting the dashboards it contains. Dangerous: current versions are
    replaced. Use only when the user asks to roll back. Needs confirmation after a
    countdown. Returns a task id and what was restored.""",
    can=Phrase("restore a backup", "восстановить бэкап"),
    example=Phrase("Restore yesterday's backup", "Восстанови вчерашний бэкап"),
    card=CardLine(
        en="Restore backup {backup_id} into {env}, overwriting dashboards",
        ru="Восстановить резервную копию {backup_id} в {env} с перезаписью дашбордов",
    ),
    long_task=True,
    presentation="diff",
    idempotent=True,
    undo="undoable",  # what it overwrote is exported first and restored
)

SPECS = family.specs
