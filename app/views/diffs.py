"""Diffs: what a run through the migration path would do, or did, on its target.

* :func:`preflight_view` — a migration's or deploy's preflight (the confirmation's
  ``details``) as a diff: every object of the bundle with what the run would do to it;
* :func:`migration` — what a finished migration, deploy or restore did on its target;
* :func:`diff` — the ``diff`` presentation: a result of either kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.views import models as vm
from app.views.cells import Links

DIFF_KINDS = (("dashboards", "dashboard"), ("charts", "chart"), ("datasets", "dataset"),
              ("databases", "database"))  # fmt: skip
_PAST = {"created": "create", "overwritten": "overwrite", "skipped": "skip"}


def preflight_view(details: Mapping[str, Any] | None) -> vm.DiffView | None:
    """A migration's or deploy's preflight (the confirmation's ``details``) as a diff:
    every object of the bundle with what the run would do to it on the target."""
    if not isinstance(details, Mapping) or not any(
        isinstance(details.get(k), list) for k, _ in DIFF_KINDS
    ):
        return None
    target = details.get("target_env")
    mapping = details.get("database_mapping") or {}
    rows = []
    for key, kind in DIFF_KINDS:
        found = details.get(key)
        for r in found if isinstance(found, list) else []:
            if not isinstance(r, Mapping):
                continue
            name = str(r.get("name") or r.get("uuid") or "")
            if kind == "database" and isinstance(mapping, Mapping) and mapping.get(name):
                name = f"{name} → {mapping[name]}"
            rows.append(
                vm.DiffRow(object_type=kind, name=name, action=str(r.get("action")), target=target)
            )
    return vm.DiffView(
        source_env=details.get("source_env"),
        target_env=target,
        rows=rows,
        errors=[str(e) for e in details.get("errors") or []],
    )


def migration(result: Mapping[str, Any], links: Links) -> vm.DiffView:
    """What a finished migration, deploy or restore did on its target."""
    target = result.get("target_env")
    rows = [
        vm.DiffRow(
            object_type="dashboard",
            name=str(d.get("title") or d.get("slug") or d.get("target_id") or ""),
            action=_PAST.get(str(d.get("action")), str(d.get("action"))),
            target=target,
            url=links.dashboard(d.get("target_id")),
        )
        for d in result.get("dashboards") or []
        if isinstance(d, Mapping)
    ]
    counts = {
        kind: {str(a): int(n) for a, n in (result.get(key) or {}).items()}
        for key, kind in DIFF_KINDS[1:]
        if isinstance(result.get(key), Mapping)
    }
    return vm.DiffView(
        source_env=result.get("source_env"), target_env=target, rows=rows, counts=counts
    )


def diff(result: Mapping[str, Any], links: Links) -> vm.DiffView | None:
    return migration(result, links) if "dashboards" in result else preflight_view(result)
