"""The offline planner's knowledge of the git tools: creating a branch, committing the
dashboards (a default message naming them when the request gives none)."""

from __future__ import annotations

import re
from typing import Any

from app.planner.keywords import STOP
from app.planner.knowledge import Need, ToolKnowledge, row
from app.planner.labels import env_in, named
from app.planner.markup import md_escape, quote
from app.planner.numbers import counted
from app.planner.phrases import sayer
from app.planner.request import Request, after_pattern
from app.planner.results import Result
from app.planner.slots import CallText, Slots, Texts, phrased
from app.planner.tails import tail_pattern, tail_search, tail_value
from app.planner.text import Lang

# --- reading ------------------------------------------------------------------------------
AFTER_BRANCH_NAMED = after_pattern(
    r"\bbranch(?:\s+(?:named|called))?|ветк[уаи](?:\s+с\s+именем|\s+под\s+названием)?"
    r"|бранч|ветвь"
)
AFTER_BRANCH = after_pattern(r"\bbranch\b|ветк[уеи]")
_MESSAGE = tail_pattern(
    r"(?:message|msg|сообщени\w*|комментари\w*|с\s+текстом)(?:\s*+[:=])?|:", re.IGNORECASE
)


def _branch_args(req: Request) -> dict[str, Any]:
    refs, from_ctx = req.dashboards(required=False)
    name = req.name_after(AFTER_BRANCH_NAMED, stop=STOP | {"for", "для", "from", "от", "с"})
    return {
        "branch": name or (req.quoted[0] if req.quoted else None),
        "dashboard_id": refs[0] if refs else None,
        "env_id": req.env_id(object_from_context=from_ctx),
    }


def _commit_args(req: Request) -> dict[str, Any]:
    refs, from_ctx = req.dashboards(required=False)
    message = req.quoted[0] if req.quoted else None
    if message is None:
        m = tail_search(_MESSAGE, req.prefix)
        message = tail_value(m).strip() if m else None
    if message is None and refs:  # a default naming the dashboards (editable on the card)
        message = _say("default_commit_message", req.lang, ids=", ".join(map(str, refs)))
    branch = req.name_after(AFTER_BRANCH, stop=STOP)
    return {
        "message": message,
        "dashboard_ids": refs or None,
        "branch": branch,
        "env_id": req.env_id(object_from_context=from_ctx),
    }


# --- saying a call ------------------------------------------------------------------------
_BRANCH = CallText(
    doing=("creating branch {branch}{of}{env}", "создаю ветку {branch}{of}{env}"),
    ru_noun="создание ветки {branch}",
    request=("create branch {branch}{of}{env}", "создай ветку {branch}{of}{env}"),
)


def _branch_said(s: Slots) -> Texts:
    of = s.of_dash("dashboard_id", "for", "для")
    return phrased(_BRANCH, s, branch=s.v("branch"), of=of)


_COMMIT = CallText(
    doing=("committing {message}{of}{branch}{env}", "коммичу {message}{of}{branch}{env}"),
    ru_noun="коммит {message}",
    request=(
        "commit changes {message}{of}{branch}{env}",
        "закоммить изменения {message}{of}{branch}{env}",
    ),
)


def _commit_said(s: Slots) -> Texts:
    msg = s.v("message")
    message = f"«{msg}»" if '"' in msg else f'"{msg}"'
    of, to_branch = s.of_dash("dashboard_ids", "of", ""), s.both("branch", "to branch", "в ветку")
    return phrased(_COMMIT, s, message=message, of=of, branch=to_branch)


# --- answers ------------------------------------------------------------------------------
#: this family's answer sentences, (English, Russian) with the same placeholders, said by _say
SAID: dict[str, tuple[str, str]] = {
    # a commit's message when the request gives none (the card shows it; Edit changes it)
    "default_commit_message": ("Update dashboard {ids}", "Изменения дашборда {ids}"),
    "branch_for": (", for dashboard {dashboards}{env}", ", для дашборда {dashboards}{env}"),
    "branch_created": (
        "Created branch {branch} from {start} and switched to it{scope}.",
        "Создал ветку {branch} от {start} и переключился на неё{scope}.",
    ),
    "commit_nothing": (
        "Nothing to commit: the repository already holds these dashboards as exported.",
        "Коммитить нечего: в репозитории уже лежат эти дашборды в том же виде.",
    ),
    "committed": (
        "Committed {message} to {branch} as {sha}: {files}, {dashboards}.",
        "Закоммитил {message} в {branch} ({sha}): файлов — {files}, дашбордов — {dashboards}.",
    ),
}


_say = sayer(SAID)


def _branched(args: dict[str, Any], result: Result, lang: Lang) -> str:
    dashboards = [md_escape(d) for d in result.items("dashboards")]
    env = env_in(result.get("env_id"), lang)
    scope = (
        _say("branch_for", lang, dashboards=", ".join(dashboards), env=env) if dashboards else ""
    )
    return _say(
        "branch_created",
        lang,
        branch=named(result, args, "branch"),
        start=md_escape(result.get("from") or "?"),
        scope=scope,
    )


def _committed(args: dict[str, Any], result: Result, lang: Lang) -> str:
    if result.get("committed") is False:
        return _say("commit_nothing", lang)
    return _say(
        "committed",
        lang,
        message=quote(args.get("message") or result.get("message") or "", lang),
        branch=named(result, args, "branch"),
        sha=md_escape(str(result.get("sha") or "")[:7]),
        files=counted(result.total("files_changed"), ("file", "files"), lang),
        dashboards=counted(result.total("dashboards"), ("dashboard", "dashboards"), lang),
    )


# --- the tools ----------------------------------------------------------------------------
TOOLS = (
    ToolKnowledge(
        "create_branch",
        rows=(row(120, [r"\bbranch\w*", r"ветк\w*|ветвь|бранч\w*"]),),
        read_args=_branch_args,
        required=("branch",),
        phrase=_branch_said,
        report=_branched,
        need=Need("dashboard", "dashboard_id", required=False),
    ),
    ToolKnowledge(
        "commit_changes",
        rows=(
            row(
                110,
                [
                    r"\bcommit\w*|\bcheck\s*in\b",
                    r"закоммит\w*|коммит\w*|зафиксиру\w*",
                    r"(?:сохрани|save)\w*\s+(?:\w+\s+)?(?:изменени\w*|changes)",
                ],
            ),
        ),
        read_args=_commit_args,
        required=("message",),
        phrase=_commit_said,
        report=_committed,
        need=Need("dashboard", "dashboard_ids", required=False),
    ),
)
