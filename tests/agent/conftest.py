"""An audit writer on a database of its own (the graph harness, ``harness``: tests/agent/harness.py,
registered in tests/conftest.py)."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.agent.audit import AuditWriter
from app.store.db import Database


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[AuditWriter]:
    """An audit writer on a SQLite file of its own; closed (its thread ended) afterwards."""
    db = Database.open(f"sqlite:///{tmp_path / 'app.db'}")
    w = AuditWriter(db)
    yield w
    w.close()
    db.engine.dispose()
