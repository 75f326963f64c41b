"""Graph/handler test fixtures (see tests/agent/harness.py), and an audit writer on a
database of its own."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.agent.audit import AuditWriter
from app.store.db import Database
from tests.agent.harness import harness

__all__ = ["harness"]


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[AuditWriter]:
    """An audit writer on a SQLite file of its own; closed (its thread ended) afterwards."""
    db = Database.open(f"sqlite:///{tmp_path / 'app.db'}")
    w = AuditWriter(db)
    yield w
    w.close()
    db.engine.dispose()
