"""Phrases for the data, task, environment and maintenance tools (see
:mod:`app.planner.actions`); their texts are in ``calls.toml``."""

from __future__ import annotations

from app.planner.slots import Slots, Texts, phrased

_PARTS = ("database", "schema", "table")
_PARTS_RU = {
    "database": ("базу", "база"),
    "schema": ("схему", "схема"),
    "table": ("таблицу", "таблица"),
}


def tasks(s: Slots) -> Texts:
    task = s.v("task_id")
    return phrased("get_task_status_one" if task else "get_task_status", s, task=task)


def explore(s: Slots) -> Texts:
    parts = [k for k in _PARTS if s.v(k)]
    if not parts:
        return phrased("superset_explore_database", s)
    en = " ".join(f"{k} {s.v(k)}" for k in parts)
    ru = " ".join(f"{_PARTS_RU[k][0]} {s.v(k)}" for k in parts)
    named = ", ".join(f"{_PARTS_RU[k][1]} {s.v(k)}" for k in parts)
    return phrased("superset_explore_database_parts", s, parts=(en, ru), named=named)


def execute(s: Slots) -> Texts:
    limit = s.args.get("row_limit")
    unusual = limit not in (None, 100)  # the default limit goes unsaid
    return phrased(
        "superset_execute_sql",
        s,
        db=s.both("database", "on database", "в базе"),
        schema=s.both("schema", "in schema", "в схеме"),
        limit=(f" with row_limit {limit}", f", row_limit {limit}") if unusual else "",
        sql=s.v("sql"),
    )


def format_sql(s: Slots) -> Texts:
    return phrased("superset_format_sql", s, sql=s.v("sql"))


def dataset(s: Slots) -> Texts:
    return phrased(
        "superset_create_dataset_sql" if s.v("sql") else "superset_create_dataset",
        s,
        table=s.v("table_name"),
        db=s.both("database", "in database", "в базе"),
        schema=s.both("schema", "in schema", "в схеме"),
        sql=s.v("sql"),
    )


def audit(s: Slots) -> Texts:
    of_role, for_role = s.both("role", "of role", "роли"), s.both("role", "for role", "для роли")
    return phrased("superset_audit_permissions", s, of_role=of_role, for_role=for_role)


def start_maint(s: Slots) -> Texts:
    minutes, reason = s.v("duration_minutes"), s.v("reason")
    return phrased(
        "start_maintenance",
        s,
        env=s.both("env_id", "on", "на"),
        minutes=(f" for {minutes} minutes", f" на {minutes} минут") if minutes else "",
        reason=(f" because {reason}", f", причина: {reason}") if reason else "",
    )


def end_maint(s: Slots) -> Texts:
    return phrased("end_maintenance", s, env=s.both("env_id", "on", "на"))
