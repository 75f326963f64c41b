"""Waiting for a condition in a test, the one way the suite does it on a loaded machine.

A test that depends on something happening in another task, thread or process waits for
the *condition*, polling, until a generous deadline (:data:`WAIT_S`): the deadline bounds
a hang, it never checks speed (speed goes to ``bench/``). CI runs on two busy cores, so
a step that takes milliseconds here may take seconds there.

    value = wait_until(lambda: rows(...), "the run's row never appeared")        # sync
    value = await until(lambda: stream.stopped, "the stream never said stopped")  # async
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")

#: How long a condition may take on a loaded machine before the test fails.
WAIT_S = 60.0
POLL_S = 0.02


def wait_until(
    check: Callable[[], T], failure: str, timeout: float = WAIT_S, every: float = POLL_S
) -> T:
    """``check()``'s first truthy value, polled every ``every`` s; AssertionError(failure)
    after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not (value := check()):
        if time.monotonic() >= deadline:
            raise AssertionError(failure)
        time.sleep(every)
    return value


async def until(
    check: Callable[[], T | Awaitable[T]],
    failure: str,
    timeout: float = WAIT_S,
    every: float = POLL_S,
) -> T:
    """The async :func:`wait_until`: ``check`` may be a plain or a coroutine function."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if isinstance(value, Awaitable):
            value = await value
        if value:
            return value  # type: ignore[return-value]
        if time.monotonic() >= deadline:
            raise AssertionError(failure)
        await asyncio.sleep(every)


def patient_page_checks() -> None:
    """The NiceGUI user simulation's ``should_see`` / ``should_not_see`` look a few times,
    0.1 s apart (``retries``, 3 by default): on a loaded machine the page's background work
    (a core's turn, a thread's database write) may need longer. Patched once per session
    to go on looking until :data:`WAIT_S` has passed; a page that is right answers at the
    first look as before, so only a test that fails waits longer."""
    from nicegui.testing import User

    if getattr(User.should_see, "patient", False):
        return
    def patient(look: Any) -> Any:
        async def looking(self: User, target: object = None, **filters: object) -> None:
            deadline = time.monotonic() + WAIT_S
            while True:
                try:
                    return await look(self, target, **filters)  # type: ignore[no-any-return]
                except AssertionError:
                    if time.monotonic() >= deadline:
                        raise

        looking.patient = True  # type: ignore[attr-defined]
        return looking

    User.should_see = patient(User.should_see)  # type: ignore[method-assign]
    User.should_not_see = patient(User.should_not_see)  # type: ignore[method-assign]


#: :data:`WAIT_S` for Playwright's ``expect(...)`` (milliseconds).
WAIT_MS = int(WAIT_S * 1000)
