"""The offline planner's knowledge of the meta tools: what it can do, the environments,
the person's tasks."""

from __future__ import annotations

import re
from typing import Any

from app.i18n import catalog
from app.planner.knowledge import ToolKnowledge, no_args, row
from app.planner.labels import env_in
from app.planner.markup import md_escape, short_id
from app.planner.phrases import pick, sayer
from app.planner.request import Request
from app.planner.results import Result
from app.planner.slots import CallText, either
from app.planner.text import Lang

# --- reading ------------------------------------------------------------------------------
# "task <id>": the id is the rest of its run of [\w-] and has a digit within 64 characters
_TASK_ID = re.compile(
    r"(?:tasks?|jobs?|задач[^\W\d]{0,30}+|таск[^\W\d]{0,30}+)\s*+(?:id\s*+)?[#№:]?\s*+"
    r"(?=[\w-]{0,64}\d)([\w-]++)",
    re.IGNORECASE,
)


def _task_args(req: Request) -> dict[str, Any]:
    m = _TASK_ID.search(req.scan)
    return {"task_id": m.group(1) if m else (req.quoted[0] if req.quoted else None)}


# --- answers ------------------------------------------------------------------------------
#: this family's answer sentences, (English, Russian) with the same placeholders, said by _say
SAID: dict[str, tuple[str, str]] = {
    "environments_none": (
        "No Superset environment is configured.",
        "Окружения Superset не настроены.",
    ),
    "environments": ("{count} environments: {names}.", "Окружений — {count}: {names}."),
    "environments_maintenance": ("In maintenance: {names}.", "На обслуживании: {names}."),
    "environments_down": ("Not reachable: {names}.", "Недоступны: {names}."),
    "task": ("Task {task_id} ({what}) {state}", "Задача {task_id} ({what}) {state}"),
    "task_kind": ("task", "задача"),
    "task_step": ("step {step} of {total}", "шаг {step} из {total}"),
    "tasks_none": ("You have no recent tasks.", "Недавних задач у вас нет."),
    "tasks": (
        "Your recent tasks ({count}): {parts}. Latest: {latest}",
        "Ваши недавние задачи ({count}): {parts}. Последняя: {latest}",
    ),
}


_say = sayer(SAID)


_STATUS = catalog("planner_task_status")
_COUNTED = catalog("planner_task_states")


def _environments(args: dict[str, Any], result: Result, lang: Lang) -> str:
    envs = [e for e in result.items("environments") if isinstance(e, dict)]
    if not envs:
        return _say("environments_none", lang)
    names = ", ".join(md_escape(e.get("id")) for e in envs)
    text = _say("environments", lang, count=len(envs), names=names)
    maint = [md_escape(e.get("id")) for e in envs if e.get("in_maintenance")]
    down = [md_escape(e.get("id")) for e in envs if e.get("reachable") is False or e.get("error")]
    if maint:
        text += " " + _say("environments_maintenance", lang, names=", ".join(maint))
    if down:
        text += " " + _say("environments_down", lang, names=", ".join(down))
    return text


def _task(task: dict[str, Any], lang: Lang) -> str:
    status = str(task.get("status") or "")
    kind = md_escape(task.get("kind") or _say("task_kind", lang))
    text = _say(
        "task",
        lang,
        task_id=md_escape(short_id(task.get("task_id", "?"))),
        what=f"{kind}{env_in(task.get('env_id'), lang)}",
        state=pick(_STATUS.get(status, (status, status)), lang),
    )
    if status == "running" and task.get("total"):
        text += ": " + _say("task_step", lang, step=task.get("step"), total=task.get("total"))
    if status == "failed" and task.get("error"):
        text += f": {md_escape(str(task['error'])[:200])}"
    return text + "."


def _tasks(args: dict[str, Any], result: Result, lang: Lang) -> str:
    if isinstance(result.get("task"), dict):
        return _task(result.get("task"), lang)
    items = [t for t in result.items("tasks") if isinstance(t, dict)]
    if not items:
        return _say("tasks_none", lang)
    counts: dict[str, int] = {}
    for t in items:
        counts[str(t.get("status"))] = counts.get(str(t.get("status")), 0) + 1
    parts = ", ".join(
        f"{md_escape(pick(_COUNTED.get(s, (s, s)), lang))} — {n}" for s, n in counts.items()
    )
    return _say("tasks", lang, count=len(items), parts=parts, latest=_task(items[0], lang))


# --- the tools ----------------------------------------------------------------------------
TOOLS = (
    ToolKnowledge(
        "show_capabilities",
        rows=(
            row(
                10,
                [
                    r"what\s+(?:can|could)\s+you\s+do|what\s+are\s+you\s+able|what\s+tools"
                    r"|\bcapab\w*",
                    r"\byour\s+(?:capabilities|skills|tools|features|functions)",
                    r"^\s*(?:help|помощь|справка)\W*$",
                    r"что\s+(?:ты\s+)?(?:\w+\s+)?(?:умеешь|можешь)|чем\s+(?:ты\s+)?можешь",
                    r"(?:твои|какие)\s+(?:у\s+тебя\s+)?(?:возможности|инструменты|навыки|функци\w*)",
                ],
            ),
        ),
        read_args=no_args,
        phrase=CallText(
            doing=("explaining what I can do", "рассказываю, что умею"),
            ru_noun="рассказ о возможностях",
            request=("what can you do?", "что ты умеешь?"),
        ),
        capabilities=True,
    ),
    ToolKnowledge(
        "list_environments",
        rows=(
            # "where can I deploy?" asks for the environments, before the deploy rows
            row(
                40,
                [
                    r"where\s+(?:can|could|do)\s+(?:i|we)\s+(?:deploy|migrate)",
                    r"куда\s+(?:можно\s+|я\s+могу\s+)?(?:деплоить|задеплоить|выкатить|мигрировать)",
                ],
            ),
            row(
                250,
                [
                    r"\b(?:environments?|envs?|instances)\b",
                    r"\bis\s+\w+\s+(?:up|down|reachable|online|available)\b",
                    r"(?:доступ\w*|жив\w*)\s+ли\s+(?:прод|дев|стейдж|окружени)\w*",
                    r"окружени\w*|\bсред[аыу]?\b|инстанс\w*|стенд\w*",
                ],
            ),
        ),
        read_args=no_args,
        phrase=CallText(
            doing=("listing the environments", "показываю окружения"),
            ru_noun="список окружений",
            request=("list environments", "покажи окружения"),
        ),
        report=_environments,
    ),
    ToolKnowledge(
        "get_task_status",
        rows=(
            # "how is my migration going?", the "Check status" button's message (it names
            # this tool): a task's status, before the deploy, migration and backup rows
            row(
                60,
                [
                    r"\bget_task_status\b",
                    r"\bstatus\s+of\s+(?:the\s+|my\s+)?(?:last|latest|recent|previous)\b",
                    r"\bhow\s+is\s+(?:my|the)\s+(?:migration|deploy\w*|backup|restore)\s+going",
                    r"\bis\s+(?:my\s+|the\s+)?(?:migration|deploy\w*|backup|restore)\s+"
                    r"(?:done|finished|over|complete|ready)",
                    r"статус\w*\s+(?:последн|предыдущ|моих|моей|моего)\w*",
                    r"как\s+(?:там\s+|идёт\s+|идет\s+)(?:мо\w+\s+)?"
                    r"(?:миграци|деплой|бэкап|восстановлени)\w*",
                    r"\b(?:задеплоилось|смигрировалось|восстановилось|забэкапилось)\b",
                ],
            ),
            row(100, [r"\b(?:tasks?|jobs?)\b", r"задач\w*|таск\w*"]),
        ),
        read_args=_task_args,
        phrase=either(  # one task named, or the person's recent tasks
            "task_id",
            CallText(
                doing=("checking task {task}", "проверяю задачу {task}"),
                ru_noun="проверку задачи {task}",
                request=("status of task {task}", "статус задачи {task}"),
            ),
            CallText(
                doing=("listing your recent tasks", "показываю ваши последние задачи"),
                ru_noun="список задач",
                request=("status of my tasks", "статус моих задач"),
            ),
            slot="task",
        ),
        report=_tasks,
    ),
)
