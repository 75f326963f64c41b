"""Phrases for the dashboard, backup and git tools (see :mod:`app.planner.actions`);
their texts are in ``calls.toml``."""

from __future__ import annotations

from app.planner.markup import short_id
from app.planner.slots import Phrases, Slots, Texts, phrased


def search(s: Slots) -> Texts:
    query = s.v("query")
    return phrased("search_dashboards_for" if query else "search_dashboards", s, query=query)


def list_backups(s: Slots) -> Texts:
    return phrased("list_backups", s, of=s.of_dash("dashboard_id", "of", ""))


def run_backup(s: Slots) -> Texts:
    if not (s.args.get("dashboard_ids") or s.v("env_id")):
        return phrased("run_backup_everything", s)
    return phrased("run_backup", s, of=s.of_dash("dashboard_ids", "", ""))


def restore(s: Slots) -> Texts:
    backup = s.v("backup_id")
    if not s.raw:  # in sentences a long id reads better shortened
        backup = short_id(backup)
    return phrased("restore_backup", s, backup=backup, env=s.both("env_id", "into", "на"))


def branch(s: Slots) -> Texts:
    return phrased(
        "create_branch", s, branch=s.v("branch"), of=s.of_dash("dashboard_id", "for", "для")
    )


def commit(s: Slots) -> Texts:
    msg = s.v("message")
    message = f"«{msg}»" if '"' in msg else f'"{msg}"'
    of, to_branch = s.of_dash("dashboard_ids", "of", ""), s.both("branch", "to branch", "в ветку")
    return phrased("commit_changes", s, message=message, of=of, branch=to_branch)


def move(key: str) -> Phrases:
    """deploy/migrate: "{verb} dashboard 7 from dev to prod" (``key``: its table)."""

    def phrases(s: Slots) -> Texts:
        mapping = s.args.get("database_mapping") or {}
        m = ", ".join(f"{k} -> {v}" for k, v in mapping.items())
        return phrased(
            key,
            s,
            source=s.both("source_env", "from", "с"),
            target=s.both("target_env", "to", "на"),
            mapping=(f" map {m}", f" маппинг {m}") if m else "",
        )

    return phrases
