"""Store fixtures: ``engine`` runs a test once on SQLite and once on PostgreSQL (an empty
database of either: ``bare_engine``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, SQLModel

from app.store.db import init_db, make_engine

BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
def bare_engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """A database with no tables: a SQLite file, or the session's PostgreSQL with its
    tables dropped (and dropped again afterwards)."""
    if request.param == "sqlite":
        eng = make_engine(f"sqlite:///{tmp_path / 'store.db'}")
    else:
        eng = make_engine(request.getfixturevalue("pg_url"))
        SQLModel.metadata.drop_all(eng)
    yield eng
    if request.param == "postgres":
        SQLModel.metadata.drop_all(eng)
    eng.dispose()


@pytest.fixture
def engine(bare_engine: Engine) -> Engine:
    """A fresh database with every table, on either backend (``bare_engine``'s)."""
    init_db(bare_engine)
    return bare_engine


@pytest.fixture
def db(engine: Engine) -> Iterator[Session]:
    """A session on ``engine`` (either backend)."""
    with Session(engine, expire_on_commit=False) as s:
        yield s
