"""Replica fixtures: ``pg_db_url`` (a private PostgreSQL database with every table, for one
module), ``pg_admin`` (a connection to it that can see and end other sessions),
``behind_nginx`` (two product replicas behind nginx, for the session), and the run-signal
tests' ``pair`` (two replicas' stop signals, listening) and ``slow_polls`` (an asker looks
at the row only after the whole wait)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import psycopg
import pytest
from sqlalchemy.engine import make_url

from app.store import run_signals_pg
from app.store.db import init_db, make_engine
from tests.nginx import find_nginx
from tests.pg import private_database
from tests.replicas.cluster import ReplicaSet, start_replicas
from tests.replicas.signal_pair import Replica
from tests.support import require_or_skip
from tests.waiting import WAIT_S, wait_until


@pytest.fixture(scope="module")
def pg_db_url(pg_url: str) -> Iterator[str]:
    """A database of this module's own on the suite's PostgreSQL, tables created."""
    with private_database(pg_url, prefix="replicas") as url:
        engine = make_engine(url)
        init_db(engine)
        engine.dispose()
        yield url


@pytest.fixture
def pg_admin(pg_db_url: str) -> Iterator[psycopg.Connection[Any]]:
    """An autocommit connection to the module's database (to end other sessions)."""
    plain = make_url(pg_db_url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(plain, autocommit=True) as conn:
        yield conn


def terminate(admin: psycopg.Connection[Any], pid: int) -> None:
    """End backend ``pid`` as a dying host would (``pg_terminate_backend``)."""
    admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    wait_until(  # the backend is gone once pg_stat_activity no longer lists it
        lambda: (
            admin.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone()
            == (0,)
        ),
        f"backend {pid} did not end",
        every=0.01,
    )


@pytest.fixture
async def pair(pg_db_url: str) -> AsyncIterator[tuple[Replica, Replica]]:
    a, b = Replica(pg_db_url, "a", heartbeat_s=0.2), Replica(pg_db_url, "b", heartbeat_s=0.2)
    await a.signals.listen(a.on_stop)
    await b.signals.listen(b.on_stop)
    yield a, b
    await a.close()
    await b.close()


@pytest.fixture
def slow_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    """An asker looks at the row only after the whole wait: an answer before it came by
    its notification."""
    monkeypatch.setattr(run_signals_pg, "POLL_S", WAIT_S * 2)


@pytest.fixture(scope="session")
def behind_nginx(pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ReplicaSet]:
    """Two product replicas on a private PostgreSQL database behind Debian's nginx with
    ``deploy/nginx.conf`` (one set for the session; skipped, or failed under
    ``SS_TOOLS_REQUIRE_ALL=1``, where nginx is missing)."""
    require_or_skip(find_nginx() is not None, "nginx is not installed (apt-get install nginx)")
    with private_database(pg_url, prefix="lb") as db_url:
        replicas = start_replicas(tmp_path_factory.mktemp("replicas"), db_url, count=2)
        try:
            yield replicas
        finally:
            replicas.stop()
