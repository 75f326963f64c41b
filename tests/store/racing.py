"""Races on the store: the same work from several threads released at once, as replicas
(or one replica's requests) would run it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from tests.waiting import WAIT_S


def race(engines: list[Engine], n: int, work: Callable[[Session, int], Any]) -> list[Any]:
    """``work(session, i)`` for ``i < n`` from ``n`` threads released at once, spread over
    ``engines`` (each a replica's own pool), each in its own committed transaction; their
    results, by ``i``."""
    results: list[Any] = [None] * n
    start = threading.Barrier(n)

    def run(i: int) -> None:
        start.wait(timeout=WAIT_S)
        with Session(engines[i % len(engines)]) as session:
            results[i] = work(session, i)
            session.commit()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=WAIT_S)
    return results
