"""Superset export bundles: unpack, normalise for git, split per dashboard.

An export is a zip with one top folder (``dashboard_export_<ts>/``) holding
``metadata.yaml`` and ``dashboards/``, ``charts/``, ``datasets/<db>/``, ``databases/``
YAML files, one object a file, each with a ``uuid``. Superset matches objects by uuid
on import, so moving a dashboard to another environment is a matter of making the
bundle's uuids agree with what the target already has:

* databases by name (or an explicit ``{source_name: target_name}`` mapping), so charts
  attach to the target's own connection instead of creating a clashing one;
* datasets by physical identity (database, schema, table name);
* dashboards by slug.

That remapping is :mod:`app.superset.remap`. Everything here is pure (bytes and dicts in,
bytes and dicts out) except :func:`load_bundle`, which runs :func:`read_bundle` off the
event loop: an export is read within :class:`app.caps.BundleCaps`
(:mod:`app.superset.archive` refuses zip and YAML bombs), and its YAML parse is CPU work.
"""

from __future__ import annotations

import copy
import io
import zipfile
from dataclasses import dataclass, field
from typing import Any

import yaml

from app.caps import BundleCaps
from app.cpu import off_loop
from app.superset.archive import BundleError, check_archive, load_yaml, read_member

KINDS = ("dashboards", "charts", "datasets", "databases")
VOLATILE_METADATA_KEYS = ("timestamp",)


@dataclass
class Bundle:
    root: str
    files: dict[str, Any] = field(default_factory=dict)  # relpath -> parsed YAML

    def objects(self, kind: str) -> list[tuple[str, dict[str, Any]]]:
        prefix = kind + "/"
        return sorted(
            (p, doc)
            for p, doc in self.files.items()
            if p.startswith(prefix) and isinstance(doc, dict)
        )

    def uuids(self) -> set[str]:
        return {str(doc["uuid"]) for k in KINDS for _, doc in self.objects(k) if doc.get("uuid")}

    def summary(self) -> dict[str, list[dict[str, Any]]]:
        """Name and uuid of every object, by kind."""
        name_keys = {
            "dashboards": ("dashboard_title", "slug"),
            "charts": ("slice_name", None),
            "datasets": ("table_name", "schema"),
            "databases": ("database_name", None),
        }
        out: dict[str, list[dict[str, Any]]] = {}
        for kind, (name_key, extra_key) in name_keys.items():
            rows = []
            for path, doc in self.objects(kind):
                row = {"name": doc.get(name_key), "uuid": str(doc.get("uuid")), "path": path}
                if extra_key:
                    row[extra_key] = doc.get(extra_key)
                if kind == "datasets":
                    row["database_uuid"] = str(doc.get("database_uuid"))
                rows.append(row)
            out[kind] = rows
        return out


def safe_member(name: str) -> bool:
    """Whether a zip member name is a plain relative path: no absolute path or drive, no
    backslash, no empty, ``.`` or ``..`` part, no ``.git`` part, no control character."""
    if not name or name.startswith("/") or "\\" in name or ":" in name.split("/", 1)[0]:
        return False
    if any(ord(ch) < 32 for ch in name):
        return False
    parts = name.rstrip("/").split("/")
    return all(p not in ("", ".", "..") and p.lower() != ".git" for p in parts)


def read_bundle(data: bytes, caps: BundleCaps | None = None) -> Bundle:
    """Parse an export zip (one top folder; YAML files) within ``caps`` (default: the
    settings' defaults). A member whose name could leave the export folder (``..``, an
    absolute path) or reach ``.git`` is refused; so is a zip or YAML bomb, unread."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, EOFError, ValueError) as exc:
        raise BundleError("the export is not a zip file") from exc
    with zf:
        check_archive(zf, len(data), caps or BundleCaps())
        infos = zf.infolist()
        unsafe = [i.filename for i in infos if not safe_member(i.filename)]
        if unsafe:
            raise BundleError(f"unsafe path in the export: {unsafe[0][:200]!r}")
        members = [i for i in infos if not i.filename.endswith("/")]
        roots = {i.filename.split("/", 1)[0] for i in members if "/" in i.filename}
        if len(roots) != 1:
            raise BundleError(f"expected one top folder in the export, found {sorted(roots)}")
        root = roots.pop()
        files: dict[str, Any] = {}
        for info in members:
            rel = info.filename.split("/", 1)[1]
            if rel.endswith((".yaml", ".yml")):
                files[rel] = load_yaml(read_member(zf, info), rel)
    if "metadata.yaml" not in files:
        raise BundleError("the export has no metadata.yaml")
    return Bundle(root=root, files=files)


async def load_bundle(data: bytes, caps: BundleCaps | None = None) -> Bundle:
    """:func:`read_bundle` off the event loop (the CPU pool)."""
    return await off_loop(read_bundle, data, caps)


def dump_yaml(doc: Any) -> str:
    """Stable YAML: sorted keys, block style, unicode kept."""
    return yaml.safe_dump(doc, sort_keys=True, allow_unicode=True, default_flow_style=False)


def write_bundle(bundle: Bundle) -> bytes:
    """Pack a bundle back into an importable zip (entries in a stable order)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for rel in sorted(bundle.files):
            info = zipfile.ZipInfo(f"{bundle.root}/{rel}", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, dump_yaml(bundle.files[rel]))
    return buf.getvalue()


def git_files(bundle: Bundle, prefix: str) -> dict[str, str]:
    """Repo-relative path → normalised YAML text, volatile fields dropped."""
    out: dict[str, str] = {}
    for rel, doc in bundle.files.items():
        if rel == "metadata.yaml" and isinstance(doc, dict):
            doc = {k: v for k, v in doc.items() if k not in VOLATILE_METADATA_KEYS}
        out[f"{prefix.rstrip('/')}/{rel}"] = dump_yaml(doc)
    return dict(sorted(out.items()))


def stale_paths(existing: dict[str, str], new_files: dict[str, str]) -> list[str]:
    """Existing repo files holding an object (by uuid) that ``new_files`` stores elsewhere.

    A renamed chart is exported under a new file name; the old file must go.
    """
    new_uuids: set[str] = set()
    for text in new_files.values():
        doc = yaml.safe_load(text)
        if isinstance(doc, dict) and doc.get("uuid"):
            new_uuids.add(str(doc["uuid"]))
    stale = []
    for path, text in existing.items():
        if path in new_files:
            continue
        try:
            doc = load_yaml(text, path)
        except BundleError:
            continue  # not ours to judge: leave a hand-edited broken (or bomb) file alone
        if isinstance(doc, dict) and str(doc.get("uuid")) in new_uuids:
            stale.append(path)
    return sorted(stale)


def _position_chart_uuids(dashboard: dict[str, Any]) -> set[str]:
    position = dashboard.get("position") or {}
    out = set()
    for node in position.values() if isinstance(position, dict) else []:
        meta = node.get("meta") if isinstance(node, dict) else None
        if isinstance(meta, dict) and meta.get("uuid"):
            out.add(str(meta["uuid"]))
    return out


def dashboard_bundles(bundle: Bundle) -> list[tuple[dict[str, Any], Bundle]]:
    """One sub-bundle per dashboard: the dashboard, its charts, their datasets (and the
    datasets of its native filters) and their databases, plus ``metadata.yaml``."""
    charts = {str(d.get("uuid")): p for p, d in bundle.objects("charts")}
    datasets = {str(d.get("uuid")): p for p, d in bundle.objects("datasets")}
    databases = {str(d.get("uuid")): p for p, d in bundle.objects("databases")}
    out = []
    for path, dash in bundle.objects("dashboards"):
        keep = {"metadata.yaml", path}
        ds_uuids = set()
        for chart_uuid in _position_chart_uuids(dash):
            if chart_uuid in charts:
                keep.add(charts[chart_uuid])
                ds_uuids.add(str(bundle.files[charts[chart_uuid]].get("dataset_uuid")))
        for flt in (dash.get("metadata") or {}).get("native_filter_configuration") or []:
            ds_uuids.update(
                str(t["datasetUuid"]) for t in flt.get("targets") or [] if t.get("datasetUuid")
            )
        for ds in ds_uuids & set(datasets):
            keep.add(datasets[ds])
            db = str(bundle.files[datasets[ds]].get("database_uuid"))
            if db in databases:
                keep.add(databases[db])
        files = {p: copy.deepcopy(bundle.files[p]) for p in sorted(keep) if p in bundle.files}
        out.append((dash, Bundle(root=bundle.root, files=files)))
    return out


def chart_bundle(bundle: Bundle) -> Bundle:
    """The charts of ``bundle`` (with datasets and databases) as a chart-import bundle."""
    files = {
        p: copy.deepcopy(d) for p, d in bundle.files.items() if not p.startswith("dashboards/")
    }
    meta = dict(files.get("metadata.yaml") or {})
    meta["type"] = "Slice"
    files["metadata.yaml"] = meta
    return Bundle(root=bundle.root.replace("dashboard_export", "chart_export"), files=files)
