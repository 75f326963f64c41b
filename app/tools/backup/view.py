"""How the backup tools' results are shown: the stored backups as a table, a new backup
as its facts. A restore is a diff of what it did on its target (the generic
:func:`app.views.migration`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.views import FactsView, Links, TableView, dict_table, facts


def list_backups(result: Mapping[str, Any], links: Links) -> TableView:
    keys = ("backup_id", "env_id", "dashboards", "created_at", "created_by", "size_bytes", "note")
    return dict_table(result.get("backups") or [], keys, csv_name="backups")


def run_backup(result: Mapping[str, Any], links: Links) -> FactsView:
    keys = ("backup_id", "env_id", "dashboard_count", "chart_count", "size_bytes", "created_at",
            "task_id")  # fmt: skip
    return facts(result, links, keys)
