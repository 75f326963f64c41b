"""Git tools' specs: create_branch and commit_changes.
(Implementations and what a commit holds: ``run.py`` beside it.)

What git keeps (a commit message, a branch name) holds no control character but a
message's newlines and tabs: ``git log`` in a terminal would run them
(:mod:`app.tools.args`). Both are admin-only and fit dashboard pages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.tools.args import OneLineText, PlainText, Ru, ToolArgs, arg, env_field, optional
from app.tools.declare import ADMINS, Family, which_dashboards
from app.vocab import Lang

family = Family("git")


class CreateBranchArgs(ToolArgs):
    branch: OneLineText = arg(
        "Name of the new git branch.", Ru("Ветка", "Имя новой ветки git."), min_length=1
    )
    dashboard_id: str | None = optional(
        "Dashboard the branch is about (id or slug), if any.",
        Ru("Дашборд", "Дашборд, к которому относится ветка (id или slug), если есть."),
    )
    env_id: str | None = env_field()


class CommitChangesArgs(ToolArgs):
    message: PlainText = arg(
        "Commit message.", Ru("Сообщение коммита", "Текст сообщения коммита."), min_length=1
    )
    dashboard_ids: list[str] = arg(
        "Dashboards to export and commit; empty commits all.",
        Ru("Дашборды", "Какие дашборды выгрузить и закоммитить; пусто — все."),
        default_factory=list,
    )
    branch: OneLineText | None = optional(
        "Branch to commit to; omit for current.",
        Ru("Ветка", "В какую ветку коммитить; пусто — в текущую."),
    )
    env_id: str | None = env_field()


def _card_values(args: Mapping[str, Any], lang: Lang) -> dict[str, str]:
    message = " ".join(str(args.get("message") or "").split())
    dashboard = args.get("dashboard_id")
    for_dashboard = "для дашборда" if lang == "ru" else "for dashboard"
    about = f" {for_dashboard} {dashboard}" if dashboard else ""
    return {
        "what": which_dashboards(args, lang),
        "about": about,
        "message_line": message[:79] + "…" * (len(message) > 79),
    }


create_branch = family.spec(
    "create_branch", CreateBranchArgs, "write", card_values=_card_values, roles=ADMINS,
    pages=("dashboard",), open_world=False,
    description="""Creates a branch in the dashboards' git repository and checks it out,
    optionally about one dashboard (the branch then remembers that dashboard and its
    environment for commit_changes). Use before committing changes for review. Needs
    confirmation. Returns the branch name.""",
    en=("create a git branch", "Create a git branch for this dashboard",
        "Create git branch {branch}{about}"),
    ru=("создать git-ветку", "Создай git-ветку для этого дашборда",
        "Создать ветку git {branch}{about}"),
    undo="undoable",  # the branch is deleted
)  # fmt: skip

commit_changes = family.spec(
    "commit_changes", CommitChangesArgs, "write", card_values=_card_values, roles=ADMINS,
    pages=("dashboard",), idempotent=True,
    description="""Exports dashboards from an environment and commits them (one YAML file
    per object) to the git repository with a message, on `branch` (created if missing) or
    the current branch. Use to version dashboards. Needs confirmation. Returns the commit
    id and the files changed.""",
    en=("commit changes to git", "Commit the current dashboard to git",
        "Commit {what} from {env} to git: {message_line}"),
    ru=("закоммитить изменения", "Закоммить текущий дашборд в git",
        "Записать в git {what} из {env}: {message_line}"),
    undo="undoable",  # a revert commit, never a history rewrite
)  # fmt: skip
