"""What Superset objects look like now, as hashes: how an undo knows whether someone
changed them after the agent's write.

:func:`fingerprint` exports the objects of each kind (dashboards, charts, datasets) by
uuid through that kind's own export (``/api/v1/<kind>/export/``) and hashes each one's
YAML, normalised as the git tools store it (keys sorted, block style): the same object
unchanged gives the same hash, any edit (a title, a chart's params, a dataset's columns)
another. An object that is not there hashes to :data:`ABSENT`. :func:`changed` compares
two fingerprints; the caller names what differs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping
from typing import Any

from app.caps import BundleCaps
from app.superset import rison
from app.superset.bundle import dump_yaml, load_bundle
from app.superset.migration import list_all

ABSENT = "absent"
#: a kind's REST resource → the folder its export holds its objects in
FOLDERS = {"dashboard": "dashboards", "chart": "charts", "dataset": "datasets"}
Fingerprint = dict[str, dict[str, str]]  # kind -> uuid -> hash (or ABSENT)


def digest(doc: Any) -> str:
    """The hash of one exported object (its normalised YAML)."""
    return hashlib.sha256(dump_yaml(doc).encode("utf-8")).hexdigest()


async def ids_by_uuid(client: Any, kind: str, uuids: Collection[str]) -> dict[str, int]:
    """uuid → id on ``client``'s environment, for those of ``uuids`` that exist."""
    wanted = set(uuids)
    if not wanted:
        return {}
    rows = await list_all(client, kind, ["id", "uuid"])
    return {str(r["uuid"]): int(r["id"]) for r in rows if str(r.get("uuid")) in wanted}


async def export_kind(client: Any, kind: str, ids: list[int]) -> bytes:
    """The export zip of ``ids`` of ``kind`` (dashboard, chart or dataset)."""
    resp = await client.request("GET", f"/api/v1/{kind}/export/", params={"q": rison.dumps(ids)})
    return bytes(resp.content)


async def fingerprint(
    client: Any, wanted: Mapping[str, Collection[str]], caps: BundleCaps | None = None
) -> Fingerprint:
    """kind → uuid → hash of each wanted object as ``client``'s environment has it now."""
    out: Fingerprint = {}
    for kind, uuids in wanted.items():
        if not uuids:
            continue
        hashes = dict.fromkeys(sorted(set(uuids)), ABSENT)
        found = await ids_by_uuid(client, kind, hashes)
        if found:
            data = await export_kind(client, kind, sorted(found.values()))
            bundle = await load_bundle(data, caps)
            for _, doc in bundle.objects(FOLDERS[kind]):
                if str(doc.get("uuid")) in hashes:
                    hashes[str(doc["uuid"])] = digest(doc)
        out[kind] = hashes
    return out


def wanted_of(recorded: Mapping[str, Mapping[str, str]]) -> dict[str, list[str]]:
    """The kinds and uuids a recorded fingerprint covers (to take it again)."""
    return {kind: sorted(hashes) for kind, hashes in recorded.items()}


def changed(
    recorded: Mapping[str, Mapping[str, str]], now: Mapping[str, Mapping[str, str]]
) -> list[tuple[str, str, str]]:
    """(kind, uuid, how) of each object whose hash differs: ``edited``, ``deleted`` (it
    was there after the write, it is not now) or ``recreated`` (the other way round)."""
    out = []
    for kind, hashes in recorded.items():
        for uuid, before in hashes.items():
            after = now.get(kind, {}).get(uuid, ABSENT)
            if after == before:
                continue
            how = "deleted" if after == ABSENT else "recreated" if before == ABSENT else "edited"
            out.append((kind, uuid, how))
    return out
