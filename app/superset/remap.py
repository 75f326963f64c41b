"""Remap an export bundle onto a target environment (see :mod:`app.superset.bundle`):
make the bundle's uuids agree with the objects the target already holds — databases by
name (or an explicit mapping), datasets by physical identity, dashboards by slug — and
say, per object, whether an import creates or overwrites it. Pure: dicts in, dicts out.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from app.superset.bundle import Bundle


@dataclass
class TargetInventory:
    """What the target environment already holds (from its list APIs)."""

    databases: list[dict[str, Any]] = field(default_factory=list)  # database_name, uuid, id
    datasets: list[dict[str, Any]] = field(default_factory=list)  # table_name, schema, uuid, db
    dashboards: list[dict[str, Any]] = field(default_factory=list)  # slug, uuid, id, title
    charts: list[dict[str, Any]] = field(default_factory=list)  # slice_name, uuid, id


@dataclass
class Remap:
    bundle: Bundle
    databases: list[dict[str, Any]]  # source_name, target_name, action: map|create
    problems: list[str]
    uuid_map: dict[str, str]  # source uuid -> target uuid (databases, datasets, dashboards)


def remap_bundle(
    bundle: Bundle,
    target: TargetInventory,
    mapping: dict[str, str] | None = None,
    *,
    require_database_match: bool = False,
) -> Remap:
    """Rewrite a copy of ``bundle`` so its uuids agree with the target's objects.

    A source database with no same-named target database (after ``mapping``) is either
    created by the import, or, with ``require_database_match``, reported in ``problems``.
    A mapping that names a database the target lacks is always a problem.
    """
    mapping = dict(mapping or {})
    out = Bundle(root=bundle.root, files=copy.deepcopy(bundle.files))
    by_name = {str(d.get("database_name")): d for d in target.databases}
    uuid_map: dict[str, str] = {}
    report: list[dict[str, Any]] = []
    problems: list[str] = []
    seen_target_uuids: dict[str, str] = {}
    for path, doc in out.objects("databases"):
        source_name = str(doc.get("database_name"))
        wanted = mapping.get(source_name, source_name)
        match = by_name.get(wanted)
        if match is None or not match.get("uuid"):
            if source_name in mapping:
                problems.append(
                    f"database mapping {source_name!r} → {wanted!r}: the target has no "
                    f"database named {wanted!r}"
                )
            elif require_database_match:
                problems.append(
                    f"database {source_name!r} has no match on the target; add a mapping "
                    f"{{{source_name!r}: '<target database name>'}}"
                )
            report.append({"source_name": source_name, "target_name": wanted, "action": "create"})
            continue
        target_uuid = str(match["uuid"])
        uuid_map[str(doc["uuid"])] = target_uuid
        report.append({"source_name": source_name, "target_name": wanted, "action": "map"})
        if target_uuid in seen_target_uuids:  # two source dbs onto one target: keep one file
            del out.files[path]
            continue
        seen_target_uuids[target_uuid] = path
        doc["uuid"] = target_uuid
        doc["database_name"] = wanted

    db_names = {str(d.get("uuid")): str(d.get("database_name")) for d in target.databases}
    physical = {
        (str(d.get("database_uuid")), d.get("schema") or None, d.get("table_name")): str(d["uuid"])
        for d in target.datasets
        if d.get("uuid")
    }
    for _, doc in out.objects("datasets"):
        db_uuid = uuid_map.get(str(doc.get("database_uuid")), str(doc.get("database_uuid")))
        doc["database_uuid"] = db_uuid
        if db_uuid in db_names:
            key = (db_uuid, doc.get("schema") or None, doc.get("table_name"))
            existing = physical.get(key)
            if existing and existing != str(doc["uuid"]):
                uuid_map[str(doc["uuid"])] = existing
                doc["uuid"] = existing
    for _, doc in out.objects("charts"):
        ds = str(doc.get("dataset_uuid"))
        if ds in uuid_map:
            doc["dataset_uuid"] = uuid_map[ds]
    slugs = {
        d.get("slug"): str(d["uuid"]) for d in target.dashboards if d.get("slug") and d.get("uuid")
    }
    for _, doc in out.objects("dashboards"):
        existing = slugs.get(doc.get("slug")) if doc.get("slug") else None
        if existing and existing != str(doc["uuid"]):
            uuid_map[str(doc["uuid"])] = existing
            doc["uuid"] = existing
        _rewrite_native_filter_datasets(doc, uuid_map)
    return Remap(out, report, problems, uuid_map)


def _rewrite_native_filter_datasets(dashboard: dict[str, Any], uuid_map: dict[str, str]) -> None:
    metadata = dashboard.get("metadata") or {}
    for flt in metadata.get("native_filter_configuration") or []:
        for target in flt.get("targets") or []:
            ds = target.get("datasetUuid")
            if ds and str(ds) in uuid_map:
                target["datasetUuid"] = uuid_map[str(ds)]


def diff_against(bundle: Bundle, target: TargetInventory) -> dict[str, list[dict[str, Any]]]:
    """Per kind, each object of a (remapped) bundle with ``action`` create or overwrite."""
    present = {
        "dashboards": {str(d.get("uuid")) for d in target.dashboards},
        "charts": {str(d.get("uuid")) for d in target.charts},
        "datasets": {str(d.get("uuid")) for d in target.datasets},
        "databases": {str(d.get("uuid")) for d in target.databases},
    }
    out: dict[str, list[dict[str, Any]]] = {}
    for kind, rows in bundle.summary().items():
        out[kind] = [
            {
                "name": r["name"],
                "uuid": r["uuid"],
                "action": "overwrite" if r["uuid"] in present[kind] else "create",
                **({"slug": r["slug"]} if "slug" in r else {}),
            }
            for r in rows
        ]
    return out
