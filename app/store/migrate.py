"""Columns added to the product's tables after they first shipped (``init_db``).

A data dir from an earlier version keeps its rows: each column an existing table lacks is
added (idempotent; SQLite has no ``ADD COLUMN IF NOT EXISTS``, so the table is inspected
first). A new table is created whole by ``create_all`` and needs nothing here.
"""

from __future__ import annotations

from sqlalchemy import Connection, inspect

from app.store.audit_event import AUDIT_ADDED_COLUMNS

#: table -> column -> its SQL type and default (the same on SQLite and PostgreSQL)
ADDED_COLUMNS: dict[str, dict[str, str]] = {
    "audit_event": dict.fromkeys(AUDIT_ADDED_COLUMNS, "VARCHAR"),
    # the token stamp: NULL (an account from before) matches the tokens issued before
    "app_user": {"token_stamp": "VARCHAR", "superset_username": "VARCHAR"},
    "page_session": {"stamp": "VARCHAR"},
    # edit before approving; the countdown as the policy set it when the card was opened
    "confirmation": {
        "edited_args_hash": "VARCHAR",
        "countdown_s": "INTEGER NOT NULL DEFAULT 0",
    },
    # the latest attempt's answer, counted atomically (a race lets no guess through)
    "login_throttle": {
        "allowed": "BOOLEAN NOT NULL DEFAULT TRUE",
        "closed_failures": "INTEGER NOT NULL DEFAULT 0",
    },
}


def ensure_columns(conn: Connection) -> None:
    """Add every column of :data:`ADDED_COLUMNS` an existing table lacks."""
    inspector = inspect(conn)
    for table, columns in ADDED_COLUMNS.items():
        present = {c["name"] for c in inspector.get_columns(table)}
        for name, ddl in columns.items():
            if name not in present:
                conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN {name} {ddl}")
                if (table, name) == ("confirmation", "countdown_s"):  # a card opened before
                    conn.exec_driver_sql(
                        "UPDATE confirmation SET countdown_s = 10 WHERE risk_level = 'dangerous'"
                    )
    conn.exec_driver_sql(
        "CREATE INDEX IF NOT EXISTS ix_audit_event_channel ON audit_event (channel)"
    )
