"""Meta tools' specs: what may I do here, which environments exist, how is my task doing.
(Implementations: ``run.py`` beside it.)

Each is open to every role. What the agent can do here is offered on every page (it is
"the capabilities tool" the core offers), the environments on dataset and migration
pages (they reach Superset's ``/health`` only: no sign-in), a task's status on dataset
pages (it is "the task status tool" a write whose outcome is unknown offers).
"""

from __future__ import annotations

from app.tools.args import NoArgs, Ru, ToolArgs, optional
from app.tools.declare import EVERY_PAGE, Family

family = Family("meta")


class TaskStatusArgs(ToolArgs):
    task_id: str | None = optional(
        "Task id to look up; omit to list the most recent tasks.",
        Ru("Задача", "Id задачи; пусто — список последних задач."),
    )


show_capabilities = family.spec(
    "show_capabilities", NoArgs, "read", pages=EVERY_PAGE, serves="capabilities", open_world=False,
    description="""Lists what you (the agent) can do for this user on this page: the tools
    available to their role and context, grouped by purpose. Use when the user asks what
    you can do or is unsure how to start. Returns a short list of capabilities.""",
    en=("explain what I can do", "What can you do for me here?", "Show what I can do here"),
    ru=("рассказать, что я умею", "Что ты умеешь здесь?", "Показать, что я могу здесь сделать"),
)  # fmt: skip

list_environments = family.spec(
    "list_environments", NoArgs, "read", pages=("dataset", "migration"), signs_in=False,
    description="""Lists the configured Superset environments (id, name, tier
    dev/staging/prod, URL), whether each is reachable now and in maintenance, and which one
    is selected. Use before acting on an environment the user named loosely. Returns one
    entry per environment.""",
    en=("list the Superset environments", "Which Superset environments exist?"),
    ru=("показать окружения Superset", "Какие окружения Superset есть?"),
)  # fmt: skip

get_task_status = family.spec(
    "get_task_status", TaskStatusArgs, "read", pages=("dataset",), serves="task_status",
    presentation="tasks", open_world=False,
    description="""Reports the status, progress and result of a long-running task
    (migration, backup, restore) by task id, or lists the most recent tasks. Use when the
    user asks how a task is going. Returns status, step/total and any error.""",
    en=("show the status of a task", "What is the status of my last migration?",
        "Show the status of task {task_id}"),
    ru=("показать статус задачи", "Какой статус моей последней миграции?",
        "Показать статус задачи {task_id}"),
)  # fmt: skip
