"""An export bundle is read within its caps and off the event loop: a zip that would
unpack past the byte cap, past the ratio, or into too many files is refused before a byte
is inflated; a member that lies about its size, a YAML alias bomb, a recursive alias and
nesting too deep are refused with a clear error; the parse never holds the loop."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import os
import struct
import threading
import zipfile
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from app.caps import BundleCaps
from app.errors import ToolError
from app.parts import Parts
from app.superset import bundle as bundle_module
from app.superset.bundle import BundleError, load_bundle, read_bundle
from tests.tools.export_zip import export_docs, make_export_zip
from tests.tools.test_ops_tools_unit import call, deps_for, superset

ROOT = "dashboard_export_20261130T040000"
MIB = 1024 * 1024


def packed(members: dict[str, bytes]) -> bytes:
    """A deflated zip of the export plus ``members`` (relative to the export folder)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for rel, doc in export_docs().items():
            zf.writestr(f"{ROOT}/{rel}", yaml.safe_dump(doc))
        for rel, data in members.items():
            zf.writestr(f"{ROOT}/{rel}", data)
    return buf.getvalue()


def issue_bomb() -> bytes:
    """The issue's probe: about 40 KB that unpacks to 40 MB (a chart of spaces)."""
    return packed({"charts/bomb.yaml": b"a: '" + b" " * (40 * MIB) + b"'\n"})


def lying_member() -> bytes:
    """A member whose directory entries say 10 bytes while its data holds 100 KB."""
    data = bytearray(packed({"charts/big.yaml": b"x: " + b"7" * 100_000 + b"\n"}))
    name = f"{ROOT}/charts/big.yaml"
    local = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo(name).header_offset
    struct.pack_into("<I", data, local + 22, 10)  # the local header's unpacked size
    central = data.find(b"PK\x01\x02")
    while data[central + 46 : central + 46 + len(name)] != name.encode():
        central = data.find(b"PK\x01\x02", central + 4)
    struct.pack_into("<I", data, central + 24, 10)  # the directory's unpacked size
    return bytes(data)


def laughs(levels: int = 9) -> bytes:
    """The billion laughs in YAML: each level is ten aliases of the one before."""
    lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]")
    return ("\n".join(lines) + "\n").encode()


def many_files(n: int) -> bytes:
    return packed({f"charts/c{i}.yaml": b"a: 1\n" for i in range(n)})


SMALL = BundleCaps(max_bytes=MIB, max_ratio=100, max_members=50)


@pytest.mark.parametrize(
    ("make", "caps", "error"),
    [
        # the issue's 39 KB → 40 MB export: refused before it is inflated
        (issue_bomb, BundleCaps(), "refused unread .*zip bomb"),
        # under the byte cap, its ratio gives it away (about 1,000 to 1)
        (
            lambda: packed({"charts/bomb.yaml": b"a: '" + b" " * (20 * MIB) + b"'\n"}),
            BundleCaps(),
            r"unpacks to \d{3,} times its size .*zip bomb",
        ),
        # incompressible data past the byte cap: refused by its size, whatever its ratio
        (lambda: packed({"charts/noise.yaml": os.urandom(2 * MIB)}), SMALL, "over the limit of"),
        # more files than the cap, each harmless
        (lambda: many_files(60), SMALL, "holds 6[0-9] files; at most 50"),
        # a member whose directory lies about its size fails as it is read, not after
        (lying_member, BundleCaps(), "cannot be read"),
        # YAML's own bomb: aliases of aliases (10**9 nodes from 100)
        (lambda: packed({"charts/lol.yaml": laughs()}), BundleCaps(), "YAML bomb"),
        # an alias inside itself
        (lambda: packed({"charts/loop.yaml": b"a: &a [*a]\n"}), BundleCaps(), "refers to itself"),
        # nesting deeper than Python can build: an error, not a crashed tool
        (lambda: packed({"charts/deep.yaml": b"[" * 50_000}), BundleCaps(), "nest"),
    ],
)
def test_a_bomb_is_refused_with_a_clear_error(make: Any, caps: BundleCaps, error: str) -> None:
    with pytest.raises(BundleError, match=error):
        read_bundle(make(), caps)


@pytest.mark.parametrize(
    ("members", "caps"),
    [
        # small and very compressible (a long run of one character): under the ratio floor
        ({"charts/pad.yaml": b"a: '" + b" " * 500_000 + b"'\n"}, BundleCaps()),
        # a shared object Superset's YAML may carry: an alias or two is not a bomb
        ({"charts/shared.yaml": b"a: &x {k: [1, 2, 3]}\nb: *x\nc: *x\n"}, BundleCaps()),
        # exactly as many files as the cap allows
        ({f"charts/c{i}.yaml": b"a: 1\n" for i in range(45)}, SMALL),
    ],
)
def test_an_ordinary_export_within_the_caps_is_read(members: dict, caps: BundleCaps) -> None:
    bundle = read_bundle(packed(members), caps)
    assert "metadata.yaml" in bundle.files and set(members) <= set(bundle.files)


async def test_a_bundle_is_parsed_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """While a bundle's YAML is being parsed, the event loop keeps running: the parse
    waits, mid-way, for the loop to say it ran (a parse on the loop would hold it, and the
    loop would only run after the parse resumed)."""
    order: list[str] = []
    started, released = threading.Event(), threading.Event()
    real = bundle_module.load_yaml

    def held(data: bytes | str, name: str) -> Any:
        if name == "metadata.yaml":
            order.append("parse started")
            started.set()
            released.wait(timeout=120)
            order.append("parse resumed")
        return real(data, name)

    monkeypatch.setattr(bundle_module, "load_yaml", held)
    task = asyncio.create_task(load_bundle(make_export_zip()))
    await asyncio.to_thread(started.wait, 120)
    order.append("loop ran")
    released.set()
    bundle = await task
    assert order == ["parse started", "loop ran", "parse resumed"]
    assert "metadata.yaml" in bundle.files


async def test_a_backup_of_a_bomb_is_refused_and_nothing_is_stored(
    tmp_path: Path, parts: Parts
) -> None:
    fake = superset()
    fake.route(
        "GET", "/api/v1/dashboard/export/", lambda r: httpx.Response(200, content=issue_bomb())
    )
    with pytest.raises(ToolError, match="zip bomb"):
        await call("run_backup", deps_for(fake, parts), dashboard_ids=["1"])
    assert not list((tmp_path / "data").rglob("*.zip"))


async def test_a_restore_refuses_a_backup_file_larger_than_the_cap_unread(
    tmp_path: Path, parts: Parts
) -> None:
    deps = deps_for(superset(), parts)
    backup = await call("run_backup", deps, dashboard_ids=["1"])
    path = tmp_path / "data" / "backups" / "dev" / backup["file"]
    small = parts.settings.model_copy(update={"bundle_max_bytes": path.stat().st_size - 1})
    deps_small = dataclasses.replace(deps_for(superset(), parts), settings=small)
    with pytest.raises(ToolError, match="over the export limit"):
        await call("restore_backup", deps_small, backup_id=backup["backup_id"])
