"""Long-running tasks driven by an in-app runner (see :mod:`app.tasks.worker`)."""

from app.tasks.worker import (
    TaskContext,
    TaskRunner,
    get_runner,
    recover_interrupted,
    reset_runner,
    task_view,
)

__all__ = [
    "TaskContext",
    "TaskRunner",
    "get_runner",
    "recover_interrupted",
    "reset_runner",
    "task_view",
]
