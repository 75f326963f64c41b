"""undo_change: undo one earlier change by its undo id, through the change's own inverse.
(Its spec: ``spec.py``; what can be undone: ``docs/undo.md``.)

Each inverse is declared with the tool whose changes it undoes (``@runs.implements(spec,
inverse=...)``); the undo finds it on that tool, among the tools in force
(``deps.tools``), when it undoes the change's kind. An undo, in order:

1. the change is read back (:mod:`app.store.undo`): unknown, expired, undone already or
   being undone → refused ``not_undoable``; the caller's role must also be one that may
   run the original tool (so opening ``undo_change`` to a role in a policy file never
   lets it undo what it could not have done) → ``permission_denied``;
2. drift: the inverse's check says what changed since the write; anything → refused
   ``changed_since``, naming it (before the card, in the preflight; and again when it
   runs, for an edit made while the card waited). We refuse rather than offer to
   overwrite: an undo must never silently destroy someone's later work, and a person who
   wants the old state anyway still has the snapshot (a restore brings it back);
3. it is claimed (one undo, whoever asks, on any replica), run as a task, and marked
   undone; a failure opens it again. The tool node then writes the ``undone`` audit row
   that links the undo to the change (``deps.undone``).

Its environment is the change's own (``resolve_target``); an undo that ends a maintenance
window runs during one (``exempt``), any other is refused there like any write.
"""

from __future__ import annotations

import asyncio
from typing import Any

from app.errors import CallRefused
from app.i18n import t
from app.policy.pipeline import required_role_for, role_may_run
from app.store import undo as undo_store
from app.store.db import Database
from app.store.undo import UndoRecord
from app.tasks.worker import TaskContext
from app.tools.kit import Implementations, ToolDeps
from app.tools.undo import spec as specs
from app.tools.undo.spec import UndoArgs
from app.tools.undo_plan import Inverse, Undone, UndoView

runs = Implementations(specs.family)


def inverse_of(change: UndoView, deps: ToolDeps) -> Inverse | None:
    """The inverse of ``change``: its tool's, among the tools in force, if it undoes the
    change's kind (None: a change no tool in force can undo)."""
    tool = deps.tools.get(change.tool_name)
    inverse = tool.inverse if tool is not None else None
    return inverse if inverse is not None and inverse.kind == change.kind else None


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


async def _change(args: UndoArgs, deps: ToolDeps) -> tuple[UndoView, Inverse]:
    """The change ``args`` names and its inverse, if the caller may undo it now (else
    refused)."""
    change, why = await asyncio.to_thread(_read, deps.db, args.undo_id)
    inverse = inverse_of(change, deps) if change is not None else None
    if change is None or why is not None or inverse is None:
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
    return change, inverse


async def _no_drift(change: UndoView, inverse: Inverse, deps: ToolDeps) -> None:
    changed = await inverse.drift(change, deps)
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
    inverse = inverse_of(change, deps) if change is not None else None
    return inverse is not None and inverse.ends_window


async def undo_preflight(args: UndoArgs, deps: ToolDeps) -> dict[str, Any]:
    """The card: the change undone (its line), who made it and when, until when it can
    be undone, and what the undo restores or deletes; refused on drift."""
    change, inverse = await _change(args, deps)
    await _no_drift(change, inverse, deps)
    return {
        "description": t("undo_card", deps.lang, what=change.description),
        "undoes": change.description,
        "made_by": change.user_id,
        "made_at": change.created_at,
        "until": change.expires_at,
        **change.summary,
    }


@runs.implements(
    specs.undo_change, preflight=undo_preflight, resolve_target=undo_target, exempt=ends_window
)
async def undo_change(args: UndoArgs, deps: ToolDeps) -> dict[str, Any]:
    """Checked again (the card may have waited), claimed, run as a task, marked undone."""
    change, inverse = await _change(args, deps)

    async def job(ctx: TaskContext) -> dict[str, Any]:
        await ctx.report(1, deps.say("undo_checking", what=change.description))
        await _no_drift(change, inverse, deps)
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
