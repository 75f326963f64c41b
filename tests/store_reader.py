"""Audit rows read straight from a product process's database (the rows every door
writes), for tests that run the product as a process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlmodel import Session

from app.store.audit_log import list_audit
from app.store.db import make_engine


class AuditReader:
    """The audit rows of a SQLite file (a path) or a database URL."""

    def __init__(self, where: Path | str) -> None:
        url = f"sqlite:///{where.resolve()}" if isinstance(where, Path) else where
        self.engine = make_engine(url)

    def rows(self, **filters: Any) -> list[dict[str, Any]]:
        """Rows (oldest first) matching ``filters`` (``list_audit``'s)."""
        with Session(self.engine) as s:
            found = [r.model_dump() for r in list_audit(s, limit=2000, **filters)]
        return found[::-1]

    def close(self) -> None:
        self.engine.dispose()
