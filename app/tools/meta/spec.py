"""Meta tools' specs: what may I do here, which environments exist, how is my task doing.
(Implementations: ``run.py`` beside it.)

Each is open to every role. What the agent can do here is offered on every page (it is
"the capabilities tool" the core offers), the environments on dataset and migration
pages (they reach Superset's ``/health`` only: no sign-in), a task's status on dataset
pages (it is "the task status tool" a write whose outcome is unknown offers).
"""

from __future__ import annotations

from app.policy.toolspec import CardLine, Phrase
from app.tools.args import NoArgs, Ru, ToolArgs, arg
from app.tools.declare import EVERY_PAGE, Family

family = Family("meta")


class TaskStatusArgs(ToolArgs):
    task_id: str | None = arg(
        "Task id to look up; omit to list the most recent tasks.",
        Ru("Задача", "Id задачи; пусто — список последних задач."),
        default=None,
    )


show_capabilities = family.spec(
    "show_capabilities",
    args=NoArgs,
    risk="read",
    pages=EVERY_PAGE,
    serves="capabilities",
    description="""Lists what you (the agent) can do for this user on this page: the tools
    available to their role and context, grouped by purpose. Use when the user asks what
    you can do or is unsure how to start. Returns a short list of capabilities.""",
    can=Phrase("explain what I can do", "рассказать, что я умею"),
    example=Phrase("What can you do for me here?", "Что ты умеешь здесь?"),
    card=CardLine(en="Show what I can do here", ru="Показать, что я могу здесь сделать"),
    open_world=False,
)

list_environments = family.spec(
    "list_environments",
    args=NoArgs,
    risk="read",
    pages=("dataset", "migration"),
    signs_in=False,
    description="""Lists the configured Superset environments (id, name, tier
    dev/staging/prod, URL), whether each is reachable now and in maintenance, and which one
    is selected. Use before acting on an environment the user named loosely. Returns one
    entry per environment.""",
    can=Phrase("list the Superset environments", "показать окружения Superset"),
    example=Phrase("Which Superset environments exist?", "Какие окружения Superset есть?"),
)

get_task_status = family.spec(
    "get_task_status",
    args=TaskStatusArgs,
    risk="read",
    pages=("dataset",),
    serves="task_status",
    description="""Reports the status, progress and result of a long-running task
    (migration, backup, restore) by task id, or lists the most recent tasks. Use when the
    user asks how a task is going. Returns status, step/total and any error.""",
    can=Phrase("show the status of a task", "показать статус задачи"),
    example=Phrase(
        "What is the status of my last migration?", "Какой статус моей последней миграции?"
    ),
    card=CardLine(en="Show the status of task {task_id}", ru="Показать статус задачи {task_id}"),
    presentation="tasks",
    open_world=False,
)
