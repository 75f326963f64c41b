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


def patient_task_teardown() -> None:
    """NiceGUI's shutdown cancels the app's background tasks and waits 2 s for them, then
    logs an error, which the ``user`` fixture turns into a failed test; on a loaded machine
    the loop may not get round to the cancelled tasks in 2 s. Patched once per session so
    that the tasks get :data:`WAIT_S` to end first; NiceGUI's own teardown then runs as
    before (and still says so when a task really never ends)."""
    from nicegui import background_tasks

    own: Any = background_tasks.teardown
    if getattr(own, "patient", False):
        return

    async def teardown() -> None:
        tasks = background_tasks.running_tasks | set(background_tasks.lazy_tasks_running.values())
        pending = [t for t in tasks if not t.done()]
        for task in pending:
            if task not in background_tasks._await_tasks_on_shutdown:
                task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=WAIT_S)
        await own()

    teardown.patient = True  # type: ignore[attr-defined]
    background_tasks.teardown = teardown
