"""Git tools: create_branch and commit_changes on the repository at ``<data_dir>/git``.

commit_changes exports dashboards and stores them unpacked under ``<env_id>/``, one YAML
file per object (Superset's own file names), keys sorted and the export timestamp
dropped, so the same dashboards exported twice commit nothing the second time. The
commit's author is the user (``<user> <user@ss-tools.local>``).

Which dashboards a commit exports, in order: the ``dashboard_ids`` given; else those the
branch was created for (create_branch with a ``dashboard_id`` remembers it and its env);
else every dashboard of the environment. (Their specs and args: ``spec.py``.)

Undo: a branch is deleted (unless commits were made on it since); a commit is reverted
by a new commit (never a history rewrite), unless later commits changed its files.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from app.cpu import off_loop
from app.errors import ToolError
from app.gitrepo import GitRepo, check_text, user_identity
from app.i18n import t
from app.superset.bundle import git_files, load_bundle, stale_paths
from app.superset.migration import list_all, resolve_dashboards
from app.tools.git import spec as specs
from app.tools.git.spec import CommitChangesArgs, CreateBranchArgs
from app.tools.kit import Implementations, ToolDeps
from app.tools.undo_plan import Inverse, UndoPlan, UndoView

runs = Implementations(specs.family)


def repo_for(deps: ToolDeps) -> GitRepo:
    return GitRepo(Path(deps.settings.data_dir).resolve() / "git")


async def _locked(repo: GitRepo, fn: Any, *args: Any, **kwargs: Any) -> Any:
    def work() -> Any:
        with repo.lock:
            repo.ensure()
            return fn(*args, **kwargs)

    return await asyncio.to_thread(work)


# ---- undo ----------------------------------------------------------------------------------
DELETE_BRANCH, REVERT_COMMIT = "delete_branch", "revert_commit"


async def _branch_drift(change: UndoView, deps: ToolDeps) -> list[str]:
    """The branch is gone, or commits were made on it since."""
    branch, repo = change.inverse["branch"], repo_for(deps)
    head = await _locked(repo, repo.branch_head, branch)
    if head is None:
        return [t("undo_drift_branch_gone", deps.lang, branch=branch)]
    if head != change.inverse["head"]:
        return [t("undo_drift_branch_moved", deps.lang, branch=branch)]
    return []


async def _delete_branch(change: UndoView, deps: ToolDeps) -> dict[str, Any]:
    repo, inverse = repo_for(deps), change.inverse

    def delete() -> dict[str, Any]:
        back = inverse.get("from") or "main"
        switch_to = back if repo.branch_exists(back) else "main"
        repo.delete_branch(inverse["branch"], switch_to=switch_to)
        return {"deleted_branch": inverse["branch"], "checked_out": repo.current_branch()}

    return dict(await _locked(repo, delete))


async def _commit_drift(change: UndoView, deps: ToolDeps) -> list[str]:
    """The commit left its branch, or later commits changed the same files."""
    repo, inverse = repo_for(deps), change.inverse
    branch, sha = inverse["branch"], inverse["sha"]

    def check() -> list[str]:
        if not repo.branch_exists(branch) or not repo.contains(branch, sha):
            return [t("undo_drift_commit_gone", deps.lang, sha=sha[:8], branch=branch)]
        touched = repo.touched_since(sha, branch, list(inverse.get("files") or []))
        return [t("undo_drift_file_changed", deps.lang, file=f) for f in touched]

    return list(await _locked(repo, check))


async def _revert_commit(change: UndoView, deps: ToolDeps) -> dict[str, Any]:
    repo, inverse = repo_for(deps), change.inverse

    def revert() -> dict[str, Any]:
        if repo.current_branch() != inverse["branch"]:
            repo.checkout(inverse["branch"])
        sha = repo.revert(inverse["sha"], author=user_identity(deps.user_id))
        return {"reverted": inverse["sha"], "sha": sha, "branch": inverse["branch"]}

    return dict(await _locked(repo, revert))


UNDO_BRANCH = Inverse(DELETE_BRANCH, drift=_branch_drift, run=_delete_branch)
UNDO_COMMIT = Inverse(REVERT_COMMIT, drift=_commit_drift, run=_revert_commit)


@runs.implements(specs.create_branch, inverse=UNDO_BRANCH)
async def create_branch(args: CreateBranchArgs, deps: ToolDeps) -> dict[str, Any]:
    """A new checked-out branch; with a dashboard, its scope (env, ids) is remembered."""
    repo = repo_for(deps)
    env_id = deps.env().id if args.dashboard_id else deps.env_id
    scope = [str(args.dashboard_id)] if args.dashboard_id else []

    def make() -> dict[str, Any]:
        start = repo.current_branch()
        repo.new_branch(args.branch, checkout=True)
        deps.undo = UndoPlan(
            DELETE_BRANCH, {"branch": args.branch, "head": repo.head(), "from": start},
            env_id=env_id,
        )  # fmt: skip
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


@runs.implements(specs.commit_changes, inverse=UNDO_COMMIT)
async def commit_changes(args: CommitChangesArgs, deps: ToolDeps) -> dict[str, Any]:
    """Exports, writes ``<env_id>/`` (stale files removed) and commits as the user."""
    repo = repo_for(deps)
    author = user_identity(deps.user_id)
    check_text("author name", author[0])  # before the export: git would keep it as given
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
    exported = await client.export_dashboards([d["id"] for d in dashboards])
    bundle = await load_bundle(exported, deps.settings.bundle_caps())  # off the loop
    files = await off_loop(git_files, bundle, env.id)

    def commit() -> dict[str, Any]:
        if branch and branch != repo.current_branch():
            if repo.branch_exists(branch):
                repo.checkout(branch)
            else:
                repo.new_branch(branch, checkout=True)
        env_dir = repo.path / env.id
        existing = {
            str(p.relative_to(repo.path)): p.read_text(encoding="utf-8")
            for p in sorted(env_dir.rglob("*.yaml"))
        }
        repo.write_files(files, remove=stale_paths(existing, files))
        result = repo.commit(args.message, author=author, paths=[env.id])
        if result.committed:
            kept = {"sha": result.sha, "branch": result.branch, "files": result.files_changed}
            deps.undo = UndoPlan(REVERT_COMMIT, kept, env_id=env.id)
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
            "author": "{} <{}>".format(*author),
            "repository": str(repo.path),
        }

    return await _locked(repo, commit)
