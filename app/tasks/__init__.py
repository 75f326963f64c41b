"""Long-running tasks driven by an in-app runner (see :mod:`app.tasks.worker`)."""

from app.tasks.worker import TaskContext, TaskRunner, recover_interrupted, task_view

__all__ = ["TaskContext", "TaskRunner", "recover_interrupted", "task_view"]
