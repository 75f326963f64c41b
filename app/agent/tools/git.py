"""Git tools: create_branch and commit_changes on the repository at ``<data_dir>/git``.

commit_changes exports dashboards and stores them unpacked under ``<env_id>/``, one YAML
file per object (Superset's own file names), keys sorted and the export timestamp
dropped, so the same dashboards exported twice commit nothing the second time. The
commit's author is the user (``<user> <user@ss-tools.local>``).

Which dashboards a commit exports, in order: the ``dashboard_ids`` given; else those the
branch was created for (create_branch with a ``dashboard_id`` remembers it and its env);
else every dashboard of the environment.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from app.agent.tools.base import Ru, ToolArgs, ToolDeps, arg, env_field
from app.agent.tools.declare import Family, which_dashboards
from app.errors import ToolError
from app.gitrepo import GitRepo, user_identity
from app.policy import CardLine, Phrase
from app.superset.bundle import git_files, read_bundle, stale_paths
from app.superset.migration import list_all, resolve_dashboards
from app.vocab import Lang

family = Family("git")


class CreateBranchArgs(ToolArgs):
    branch: str = arg(
        "Name of the new git branch.", Ru("Ветка", "Имя новой ветки git."), min_length=1
    )
    dashboard_id: str | None = arg(
        "Dashboard the branch is about (id or slug), if any.",
        Ru("Дашборд", "Дашборд, к которому относится ветка (id или slug), если есть."),
        default=None,
    )
    env_id: str | None = env_field()


class CommitChangesArgs(ToolArgs):
    message: str = arg(
        "Commit message.", Ru("Сообщение коммита", "Текст сообщения коммита."), min_length=1
    )
    dashboard_ids: list[str] = arg(
        "Dashboards to export and commit; empty commits all.",
        Ru("Дашборды", "Какие дашборды выгрузить и закоммитить; пусто — все."),
        default_factory=list,
    )
    branch: str | None = arg(
        "Branch to commit to; omit for current.",
        Ru("Ветка", "В какую ветку коммитить; пусто — в текущую."),
        default=None,
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


def _card(en: str, ru: str) -> CardLine:
    """A git card line; ``{what}``, ``{about}`` and ``{message_line}`` are filled."""
    return CardLine(en=en, ru=ru, values=_card_values)


def repo_for(deps: ToolDeps) -> GitRepo:
    return GitRepo(Path(deps.settings.data_dir).resolve() / "git")


async def _locked(repo: GitRepo, fn: Any, *args: Any, **kwargs: Any) -> Any:
    def work() -> Any:
        with repo.lock:
            repo.ensure()
            return fn(*args, **kwargs)

    return await asyncio.to_thread(work)


@family.tool(
    risk="write",
    can=Phrase("create a git branch", "создать git-ветку"),
    example=Phrase("Create a git branch for this dashboard", "Создай git-ветку для этого дашборда"),
    card=_card("Create git branch {branch}{about}", "Создать ветку git {branch}{about}"),
    open_world=False,
)
async def create_branch(args: CreateBranchArgs, deps: ToolDeps) -> dict[str, Any]:
    """Creates a branch in the dashboards' git repository and checks it out, optionally
    about one dashboard (the branch then remembers that dashboard and its environment
    for commit_changes). Use before committing changes for review. Needs confirmation.
    Returns the branch name."""
    repo = repo_for(deps)
    env_id = deps.env(args.env_id).id if args.dashboard_id else (args.env_id or deps.env_id)
    scope = [str(args.dashboard_id)] if args.dashboard_id else []

    def make() -> dict[str, Any]:
        start = repo.current_branch()
        repo.create_branch(args.branch, checkout=True)
        if scope and env_id:
            repo.set_branch_scope(args.branch, env_id=env_id, dashboard_ids=scope)
        return {
            "branch": args.branch,
            "from": start,
            "head": repo.head(),
            "checked_out": True,
            "dashboards": scope,
            "env_id": env_id,
            "repository": str(repo.path),
        }

    return await _locked(repo, make)


@family.tool(
    risk="write",
    can=Phrase("commit changes to git", "закоммитить изменения"),
    example=Phrase("Commit the current dashboard to git", "Закоммить текущий дашборд в git"),
    card=_card(
        "Commit {what} from {env} to git: {message_line}",
        "Записать в git {what} из {env}: {message_line}",
    ),
    idempotent=True,
)
async def commit_changes(args: CommitChangesArgs, deps: ToolDeps) -> dict[str, Any]:
    """Exports dashboards from an environment and commits them (one YAML file per object)
    to the git repository with a message, on `branch` (created if missing) or the
    current branch. Use to version dashboards. Needs confirmation. Returns the commit
    id and the files changed."""
    repo = repo_for(deps)
    branch = args.branch
    if branch:
        await _locked(repo, repo.check_branch_name, branch)
    current = await _locked(repo, repo.current_branch)
    scope_env, scope_ids = await _locked(repo, repo.branch_scope, branch or current)
    env, client = deps.env_client(args.env_id or scope_env)
    ids = [str(i) for i in args.dashboard_ids] or scope_ids
    if ids:
        dashboards = await resolve_dashboards(client, ids)
    else:
        rows = await list_all(client, "dashboard", ["id", "slug", "dashboard_title"])
        dashboards = [{"id": int(r["id"]), "title": r.get("dashboard_title")} for r in rows]
        if not dashboards:
            raise ToolError(f"environment '{env.id}' has no dashboards to commit")
    bundle = read_bundle(await client.export_dashboards([d["id"] for d in dashboards]))
    files = git_files(bundle, env.id)

    def commit() -> dict[str, Any]:
        if branch and branch != repo.current_branch():
            if repo.branch_exists(branch):
                repo.checkout(branch)
            else:
                repo.create_branch(branch, checkout=True)
        env_dir = repo.path / env.id
        existing = {
            str(p.relative_to(repo.path)): p.read_text(encoding="utf-8")
            for p in sorted(env_dir.rglob("*.yaml"))
        }
        repo.write_files(files, remove=stale_paths(existing, files))
        result = repo.commit(args.message, author=user_identity(deps.user_id), paths=[env.id])
        return {
            "committed": result.committed,
            "sha": result.sha,
            "branch": result.branch,
            "files_changed": result.files_changed,
            "message": result.message
            if result.committed
            else "nothing to commit: the repository already holds these dashboards as exported",
            "env_id": env.id,
            "dashboards": [d["title"] for d in dashboards],
            "author": "{} <{}>".format(*user_identity(deps.user_id)),
            "repository": str(repo.path),
        }

    return await _locked(repo, commit)


TOOLS = family.tools
