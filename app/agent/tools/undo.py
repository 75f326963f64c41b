"""undo_change: undo one earlier change by its undo id, through the change's own inverse.
(Its spec: ``app/policy/tools/undo.py``; what can be undone: ``docs/undo.md``.)

The inverses live next to the tools they undo; :data:`INVERSES` joins them by kind. An
undo, in order:

1. the change is read back (:mod:`app.store.undo`): unknown, expired, undone already or
   being undone → refused ``not_undoable``; the caller's role must also be one that may
   run the original tool (so opening ``undo_change`` to a role in a policy file never
   lets it undo what it could not have done) → ``permission_denied``;
2. drift: the inverse's check says what changed since the write; anything → refused
   ``changed_since``, naming it (before the card, in the preflight; and again when it
   runs, for an edit made while the card waited). We refuse rather than offer to
   overwrite: an undo must never silently destroy someone's later work, and a person who
   wants the old state anyway still has the snapshot (``restore_backup``);
3. it is claimed (one undo, whoever asks, on any replica), run as a task, and marked
   undone; a failure opens it again. The tool node then writes the ``undone`` audit row
   that links the undo to the change (``deps.undone``).

Its environment is the change's own (``resolve_target``); an undo that ends a maintenance
window runs during one (``exempt``), any other is refused there like any write.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from app.agent.tools import dashboards, git, import_undo, maintenance, sql
from app.agent.tools.base import Family, ToolDeps
from app.agent.tools.undo_plan import Inverse, Undone, UndoView
from app.errors import CallRefused
from app.i18n import t
from app.policy.pipeline import required_role_for, role_may_run
from app.policy.tools import undo as specs
from app.policy.tools.undo import UndoArgs
from app.store import undo as undo_store
from app.store.db import Database
from app.store.undo import UndoRecord
from app.tasks.worker import TaskContext

family = Family(specs.family)

INVERSES: Mapping[str, Inverse] = {
    import_undo.IMPORT: import_undo.INVERSE,
    dashboards.REIMPORT: dashboards.UNDO_DELETE,
    sql.DELETE_DATASET: sql.UNDO_CREATE,
    maintenance.END_WINDOW: maintenance.UNDO_START,
    maintenance.REOPEN_WINDOW: maintenance.UNDO_END,
    git.DELETE_BRANCH: git.UNDO_BRANCH,
    git.REVERT_COMMIT: git.UNDO_COMMIT,
}


def view_of(row: UndoRecord) -> UndoView:
    return UndoView(
        undo_id=row.id, kind=row.kind, tool_name=row.tool_name, tool_args=dict(row.tool_args),
        env_id=row.env_id, description=row.description, inverse=dict(row.inverse),
        fingerprint=dict(row.fingerprint), summary=dict(row.summary), user_id=row.user_id,
        created_at=row.created_at.isoformat(timespec="seconds"),
        expires_at=row.expires_at.isoformat(timespec="seconds"),
        audit_id=row.audit_id, call_id=row.call_id,
    )  # fmt: skip


def _read(db: Database, undo_id: str) -> tuple[UndoView | None, str | None]:
    """The change (None when unknown) and why it cannot be undone now (None: it can)."""
    with db.session() as session:
        row = undo_store.get(session, undo_id=undo_id)
        return (None if row is None else view_of(row)), undo_store.why_not(row)


def _claim(db: Database, undo_id: str, by: str) -> bool:
    with db.session() as session:
        return undo_store.claim(session, undo_id=undo_id, by=by)


def _settle(db: Database, undo_id: str, *, done: bool) -> None:
    with db.session() as session:
        if done:
            undo_store.finish(session, undo_id=undo_id)
        else:
            undo_store.release(session, undo_id=undo_id)


async def _change(args: UndoArgs, deps: ToolDeps) -> UndoView:
    """The change ``args`` names, if the caller may undo it now (else refused)."""
    change, why = await asyncio.to_thread(_read, deps.db, args.undo_id)
    if change is None or why is not None or change.kind not in INVERSES:
        why = why or "unknown"
        said = undo_store.WHY_NOT[why]
        raise CallRefused(
            "not_undoable", f"change {args.undo_id} cannot be undone: {said}", reason=why
        )
    spec = deps.policy.spec(change.tool_name) if deps.policy is not None else None
    if spec is not None and not role_may_run(spec, deps.role):
        needed = required_role_for(spec)
        raise CallRefused(
            "permission_denied",
            f"undoing {change.tool_name} requires the {needed} role; your role is {deps.role}",
            required_role=needed,
            role=deps.role,
        )
    return change


async def _no_drift(change: UndoView, deps: ToolDeps) -> None:
    changed = await INVERSES[change.kind].drift(change, deps)
    if changed:
        raise CallRefused(
            "changed_since",
            f"{change.tool_name} ({change.undo_id}) changed since: " + "; ".join(changed),
            errors=changed,
        )


async def undo_target(args: UndoArgs, deps: ToolDeps) -> str | None:
    """The environment the change was made on (None: unknown, or a change that names
    none, such as a git branch)."""
    change, _ = await asyncio.to_thread(_read, deps.db, args.undo_id)
    return None if change is None else change.env_id


async def ends_window(args: UndoArgs, deps: ToolDeps) -> bool:
    """Whether this undo ends a maintenance window (it then runs during one)."""
    change, _ = await asyncio.to_thread(_read, deps.db, args.undo_id)
    inverse = INVERSES.get(change.kind) if change is not None else None
    return inverse is not None and inverse.ends_window


async def undo_preflight(args: UndoArgs, deps: ToolDeps) -> dict[str, Any]:
    """The card: the change undone (its line), who made it and when, until when it can
    be undone, and what the undo restores or deletes; refused on drift."""
    change = await _change(args, deps)
    await _no_drift(change, deps)
    return {
        "description": t("undo_card", deps.lang, what=change.description),
        "undoes": change.description,
        "made_by": change.user_id,
        "made_at": change.created_at,
        "until": change.expires_at,
        **change.summary,
    }


@family.implements(
    specs.undo_change, preflight=undo_preflight, resolve_target=undo_target, exempt=ends_window
)
async def undo_change(args: UndoArgs, deps: ToolDeps) -> dict[str, Any]:
    """Checked again (the card may have waited), claimed, run as a task, marked undone."""
    change = await _change(args, deps)
    inverse = INVERSES[change.kind]

    async def job(ctx: TaskContext) -> dict[str, Any]:
        await ctx.report(1, deps.say("undo_checking", what=change.description))
        await _no_drift(change, deps)
        if not await asyncio.to_thread(_claim, deps.db, change.undo_id, deps.user_id):
            said = "another undo of it started first"
            raise CallRefused("not_undoable", f"{change.undo_id}: {said}", reason="running")
        await ctx.report(2, deps.say("undo_running", what=change.description))
        try:
            done = await inverse.run(change, deps)
        except BaseException:
            await asyncio.to_thread(_settle, deps.db, change.undo_id, done=False)
            raise
        await asyncio.to_thread(_settle, deps.db, change.undo_id, done=True)
        return done

    env_id = change.env_id or deps.env_id or ""
    done = await deps.run_task("undo", job, env_id=env_id, total_steps=2)
    deps.undo = None  # an undo is final: an inverse that ran a tool leaves no plan behind
    deps.undone = Undone(change)
    return {"undone": change.description, "undo_id": change.undo_id,
            "tool": change.tool_name, **done}  # fmt: skip


TOOLS = family.tools
