"""The intent table: which tool an operator's request asks for, in English and Russian.

Each row names a tool with a *strong* pattern (the request names the action: "deploy",
"бэкап", "health") and optionally a *weak* one (generic words several tools could
serve: "check", "show", "dashboard"). Rows are ordered from the most specific to the
most generic; a tool may have more than one row.

Choosing (:func:`choose_tool`):
* the first row whose strong pattern matches wins, bound or not: that is what the
  person asked for, and if the tool is not allowed the server's guard says why;
* otherwise, a tool whose declaration's phrases the request says (``heard``: its
  ``can``, its example, its triggers; see :mod:`app.planner.known`) wins, the
  first bound one first: a newly declared tool needs no row here;
* otherwise, among the rows whose weak pattern matches, the first bound tool wins,
  else the first one;
* nothing matches, or the first strong row is a :data:`NO_TOOL` row (a request no tool
  serves, such as deleting a backup) → ``None`` (the planner then lists what it can do).

Patterns run on the lower-cased request with its SQL statement replaced by the word
``sqlquery`` (so "delete from t" is SQL, not a dashboard deletion). A word's ending
(``\\w*`` in a row) is read as at most :data:`ENDING` characters: a stem the text
repeats inside one long word ("удалудалудал…") would otherwise be read from each
repetition to the end of the word, and a search would take quadratic time.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

_FLAGS = re.IGNORECASE
NO_TOOL = ""  # a row for a request no tool serves (the planner then says what it can do)


@dataclass(frozen=True)
class Intent:
    tool: str
    strong: re.Pattern[str]
    weak: re.Pattern[str] | None = None


ENDING = 30  # characters of a word's ending a row reads (see the module docstring)


def _pattern(alternatives: list[str]) -> re.Pattern[str]:
    joined = "|".join(f"(?:{a})" for a in alternatives)
    return re.compile(joined.replace(r"\w*", rf"\w{{0,{ENDING}}}"), _FLAGS)


def _intent(tool: str, strong: list[str], weak: list[str] | None = None) -> Intent:
    """A row; each list holds alternatives (joined with ``|``)."""
    return Intent(tool, _pattern(strong), _pattern(weak) if weak else None)


_BACKUP = r"(?:back[\s-]?ups?|snapshots?|бэкап\w*|бекап\w*|резервн\w*\s+копи\w*|забэкап\w*)"
_MAINT = r"(?:maintenance|обслуживани\w*|техработ\w*|технически\w*\s+работ\w*)"

INTENTS: tuple[Intent, ...] = (
    # "undo the deploy" undoes it: before every row that names the change itself
    _intent(
        "undo_change",
        [
            r"\bundo\b|\brevert\s+(?:that|it|this|the\s+last)\b",
            r"\bотмени\w*\s+(?:это|последн\w*|изменени\w*|сделанн\w*)",
            r"\bверни\s+(?:всё\s+|все\s+)?как\s+было\b",
        ],
    ),
    _intent(
        "show_capabilities",
        [
            r"what\s+(?:can|could)\s+you\s+do|what\s+are\s+you\s+able|what\s+tools|\bcapab\w*",
            r"\byour\s+(?:capabilities|skills|tools|features|functions)",
            r"^\s*(?:help|помощь|справка)\W*$",
            r"что\s+(?:ты\s+)?(?:\w+\s+)?(?:умеешь|можешь)|чем\s+(?:ты\s+)?можешь",
            r"(?:твои|какие)\s+(?:у\s+тебя\s+)?(?:возможности|инструменты|навыки|функци\w*)",
        ],
    ),
    _intent(
        "end_maintenance",
        [
            r"\b(?:end|stop|finish|exit|disable|turn\s+off|leave|cancel|close|lift|remove)\b.{0,30}"
            + _MAINT,
            _MAINT + r".{0,20}\b(?:off|over|done)\b",
            r"(?:заверш|законч|выключ|отключ|останов|сним|выйд|выйт|прекрат|отмен|сверн)\w*.{0,30}"
            + _MAINT,
        ],
    ),
    _intent("start_maintenance", [_MAINT]),
    # "where can I deploy?" asks for the environments, before deploy's own row
    _intent(
        "list_environments",
        [
            r"where\s+(?:can|could|do)\s+(?:i|we)\s+(?:deploy|migrate)",
            r"куда\s+(?:можно\s+|я\s+могу\s+)?(?:деплоить|задеплоить|выкатить|мигрировать)",
        ],
    ),
    # no tool deletes a backup: "delete backup X" must not become "take a backup"
    _intent(
        NO_TOOL,
        [
            r"\b(?:delete|remove|drop|erase|purge)\b.{0,20}" + _BACKUP,
            r"(?:удал|снес|снест|убер|стер|сотр)\w*.{0,20}" + _BACKUP,
        ],
    ),
    # "how is my migration going?", "Check the status of the last deploy_dashboard
    # operation (get_task_status)": a task's status, before the deploy/migration rows
    _intent(
        "get_task_status",
        [
            r"\bget_task_status\b",
            r"\bstatus\s+of\s+(?:the\s+|my\s+)?(?:last|latest|recent|previous)\b",
            r"\bhow\s+is\s+(?:my|the)\s+(?:migration|deploy\w*|backup|restore)\s+going",
            r"\bis\s+(?:my\s+|the\s+)?(?:migration|deploy\w*|backup|restore)\s+"
            r"(?:done|finished|over|complete|ready)",
            r"статус\w*\s+(?:последн|предыдущ|моих|моей|моего)\w*",
            r"как\s+(?:там\s+|идёт\s+|идет\s+)(?:мо\w+\s+)?(?:миграци|деплой|бэкап|восстановлени)\w*",
            r"\b(?:задеплоилось|смигрировалось|восстановилось|забэкапилось)\b",
        ],
    ),
    _intent(
        "restore_backup",
        [
            r"\b(?:restore|roll\s*back|recover)\w*",
            r"восстанов\w*|откат\w*|откати\w*",
            r"верн\w*.{0,30}" + _BACKUP,
        ],
    ),
    _intent(
        "list_backups",
        [
            r"\b(?:list|show|which|what|available|all|existing|get)\b.{0,25}" + _BACKUP,
            r"\b(?:are\s+there|is\s+there|do\s+we\s+have)\b.{0,15}" + _BACKUP,
            _BACKUP + r"\s+(?:list|available)",
            r"(?:список|покажи|какие|все|перечисли|выведи|есть\s+ли|имеющи\w*|провер\w*)\W+"
            r"(?:\w+\W+){0,3}?" + _BACKUP,
            r"\bcheck\b.{0,15}" + _BACKUP,
        ],
    ),
    _intent("run_backup", [_BACKUP, r"\bback\s+(?:\w+\s+)?up\b"]),
    _intent("get_task_status", [r"\b(?:tasks?|jobs?)\b", r"задач\w*|таск\w*"]),
    _intent(
        "commit_changes",
        [
            r"\bcommit\w*|\bcheck\s*in\b",
            r"закоммит\w*|коммит\w*|зафиксиру\w*",
            r"(?:сохрани|save)\w*\s+(?:\w+\s+)?(?:изменени\w*|changes)",
        ],
    ),
    _intent("create_branch", [r"\bbranch\w*", r"ветк\w*|ветвь|бранч\w*"]),
    _intent(
        "execute_migration",
        [
            r"\bmigrat\w*|\b(?:move|copy)\b.{0,30}\bdashboards\b",
            r"мигр\w*|перенес\w*|перенос\w*|перенест\w*|скопир\w*",
        ],
    ),
    _intent(
        "deploy_dashboard",
        [
            r"\b(?:deploy\w*|promote\w*|publish\w*|ship|release(?=\s|$)|roll\s*out)\b",
            r"\bpush\b.{0,30}\bto\b",
            r"задепло\w*|деплой\w*|депло\w*|разверн\w*|разверт\w*|выкат\w*|опубликуй\w*|продвин\w*",
        ],
    ),
    _intent(
        "superset_create_dataset",
        [
            r"\b(?:create|make|add|new|register|build)\b.{0,50}\bdataset",
            r"\bdataset\s+(?:from|for|on)\b",
            r"(?:созда|сдела|добав|заведи|заведит|зарегистрир)\w*.{0,30}(?:датасет|набор\w*\s+данных)",
            r"датасет\w*\s+(?:из|по|на\s+основе)|нов\w*\s+(?:датасет|набор\w*\s+данных)",
        ],
    ),
    _intent(
        "delete_dashboard",
        [
            r"\b(?:delete|remove|drop|destroy|erase|get\s+rid\s+of)\b",
            r"удал\w*|снеси\w*|убери\w*",
        ],
    ),
    _intent(
        "superset_format_sql",
        [
            r"\b(?:format\w*|beautif\w*|prettif\w*|pretty|reformat\w*|indent\w*)\b",
            r"\btidy\w*|\bclean\s+up\b",
            r"отформатир\w*|форматир\w*|причеши\w*|выровня\w*|красив\w*",
        ],
    ),
    _intent(
        "superset_audit_permissions",
        [
            r"\bpermissions?\b|access\s+rights|who\s+(?:has|can)\s+access|\brbac\b",
            # "which roles can see everything?", "over-broad grants"
            r"\broles?\b.{0,30}\b(?:see|access|read)\b|\bgrants?\b|over[\s-]?broad|too\s+broad",
            r"\bрол[иья]\w*.{0,30}(?:вид|доступ)\w*|избыточн\w*\s+(?:прав|доступ)\w*",
            r"\baudit\b(?!\s+(?:of\s+)?(?:this\s+|the\s+|my\s+)?dashboard)",
            r"прав\w*\s+доступ\w*|\bправа\b|аудит\w*|полномочи\w*|у\s+кого\s+(?:есть\s+)?доступ",
        ],
    ),
    _intent(
        "superset_execute_sql",
        [
            r"\bsqlquery\b",
            r"\b(?:run|execute|exec)\b\s+(?:a\s+|the\s+|this\s+|my\s+)?(?:sql|query)",
            r"(?:выполни|запусти|исполни)\w*\s+(?:\w+\s+)?(?:sql|запрос\w*|скуль)",
        ],
    ),
    _intent(
        "run_llm_documentation",
        [
            r"\bdocument\w*|\bdocs\b|\bwrite\s+(?:a\s+|the\s+)?description",
            r"\bdescribe\s+(?:this\s+|the\s+|my\s+)?dashboard",
            r"документ\w*|задокументир\w*|описани\w*|\bexplain\s+(?:this\s+|the\s+)?dashboard",
            r"опиши\w*\s+(?:этот\s+|эту\s+|мой\s+)?дашборд\w*",
        ],
    ),
    # quality, analysis and a dashboard audit are validation, not health (checked first)
    _intent(
        "run_llm_validation",
        [
            r"\bquality\b|\banaly[sz]\w*|\baudit\w*\s+(?:of\s+)?(?:this\s+|the\s+|my\s+)?dashboard",
            r"качеств\w*|проанализир\w*|анализ\w*|аудит\w*\s+(?:этого\s+)?дашборд\w*",
        ],
    ),
    _intent(
        "get_health_summary",
        [
            r"\bhealth\w*|\bbroken\b|how\s+is\b.{0,40}\bdoing|\bfail\w*|\btest\b",
            r"what'?s\s+wrong|\b(?:does\s*n[o']t|is\s*n[o']t|not)\s+(?:work|load)\w*",
            r"\bis\b.{0,30}\b(?:ok|okay|fine|alright)\b",
            r"здоров\w*|\bсломан\w*|работает\s+ли|вс[её]\s+ли\s+в\s+порядке|протестир\w*",
            r"не\s+(?:работает|грузится|открывается|загружается)|что\s+не\s+так",
            r"как\s+(?:там\s+|себя\s+чувствует\s+|поживает\s+)(?:\w+\s+)?дашборд",
        ],
        weak=[r"\b(?:check|status|state|verify|ok)\b", r"провер\w*|статус\w*|состояни\w*"],
    ),
    _intent(
        "run_llm_validation",
        [
            r"\bvalidat\w*|\blint\w*",
            r"\bcheck\b.{0,30}\bfor\s+(?:errors|issues|problems|mistakes)",
            r"\b(?:find|look\s+for|any)\s+(?:\w+\s+)?(?:problems|issues|errors)",
            r"валид\w*|провалид\w*|на\s+(?:ошибк\w*|проблем\w*)|\bлинт\w*",
            r"(?:найди|поищи|есть\s+ли)\s+(?:\w+\s+)?(?:ошибк\w*|проблем\w*)",
        ],
        weak=[r"\b(?:review|verify|check)\b", r"провер\w*|ревью"],
    ),
    _intent(
        "superset_explore_database",
        [
            r"\b(?:databases?|schemas?|tables?|columns?|dbs?|explore)\b",
            r"баз[аыеуой]\w*\s+данных|\bбаз[аыеуой]?\b|\bбд\b|схем\w*|таблиц\w*|колон\w*|столбц\w*",
        ],
    ),
    _intent(
        "list_environments",
        [
            r"\b(?:environments?|envs?|instances)\b",
            r"\bis\s+\w+\s+(?:up|down|reachable|online|available)\b",
            r"(?:доступ\w*|жив\w*)\s+ли\s+(?:прод|дев|стейдж|окружени)\w*",
            r"окружени\w*|\bсред[аыу]?\b|инстанс\w*|стенд\w*",
        ],
    ),
    _intent(
        "search_dashboards",
        [
            r"\b(?:find|search|look\s+(?:for|up))\b",
            r"найд\w*|найти|поищ\w*|\bищи\b|поиск\w*",
            # "list all dashboards in dev": a request of its own, never an answer to a question
            r"\b(?:list|show)\s+(?:me\s+)?all\s+(?:the\s+)?dashboards\b",
            r"(?:покажи|выведи|перечисли)\s+(?:мне\s+)?все\s+дашборды",
        ],
        weak=[r"\bdashboards?\b|\b(?:list|show|which)\b", r"дашборд\w*|покажи|какие|список"],
    ),
)


def matching(text: str) -> tuple[list[str], list[str]]:
    """The tools whose strong and weak patterns match, each in table order."""
    strong = [i.tool for i in INTENTS if i.strong.search(text)]
    weak = [i.tool for i in INTENTS if i.weak is not None and i.weak.search(text)]
    return strong, weak


def _first_bound(tools: Sequence[str], bound: Collection[str] | None) -> str:
    if bound is not None:
        for tool in tools:
            if tool in bound:
                return tool
    return tools[0]


def choose_tool(text: str, bound: Collection[str] | None, heard: Sequence[str] = ()) -> str | None:
    """The tool a request asks for (see the module docstring for the rule); ``heard``:
    the tools whose declared phrases the request says."""
    strong, weak = matching(text)
    if strong:
        return strong[0] or None
    if heard:
        return _first_bound(heard, bound)
    return _first_bound(weak, bound) if weak else None
