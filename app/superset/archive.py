"""An export zip and its YAML, read within :class:`app.caps.BundleCaps`.

A zip bomb is refused before a byte is inflated: the zip's directory says how many files
it holds and how large each unpacks; their total and its ratio to the packed size are
checked first (:func:`check_archive`). A member is then read through ``zipfile``, which
stops at the size the directory declares, so a member that lies about it fails its CRC
check and is refused too (:func:`read_member`). YAML has its own bomb, aliases that
refer to aliases ("billion laughs"): a document whose aliases would make it many times
larger than its own nodes is refused before it is built (:func:`load_yaml`), and one that
nests past Python's recursion limit is refused rather than crashing the tool.

Pure and CPU-bound: callers on the event loop run it with :func:`app.cpu.off_loop`.
"""

from __future__ import annotations

import zipfile
from typing import Any

import yaml

from app.caps import ALIAS_FLOOR, MAX_ALIAS_GROWTH, BundleCaps
from app.errors import ToolError

#: libyaml's parser where PyYAML has it (the same safe constructor, a faster parse)
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class BundleError(ToolError):
    """The export zip is not a Superset bundle we can read (or one we refuse to)."""


def _mib(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MiB"


def check_archive(zf: zipfile.ZipFile, packed: int, caps: BundleCaps) -> None:
    """Refuse ``zf`` (``packed`` bytes) when it holds too many files, unpacks past
    ``caps.max_bytes``, or unpacks to more than ``caps.max_ratio`` times its size."""
    infos = zf.infolist()
    if len(infos) > caps.max_members:
        raise BundleError(
            f"the export holds {len(infos)} files; at most {caps.max_members} are read"
        )
    total = sum(info.file_size for info in infos)
    if total > caps.max_bytes:
        raise BundleError(
            f"the export unpacks to {_mib(total)}, over the limit of {_mib(caps.max_bytes)}: "
            "refused unread (a zip bomb, or an export too large to handle)"
        )
    if total > caps.ratio_floor and total > max(packed, 1) * caps.max_ratio:
        raise BundleError(
            f"the export unpacks to {total // max(packed, 1)} times its size ({_mib(total)} "
            f"from {packed} bytes; at most {caps.max_ratio} times): refused unread as a zip bomb"
        )


def read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """A member's bytes; one whose data disagrees with the directory is refused."""
    try:
        return zf.read(info)
    except (zipfile.BadZipFile, EOFError, OSError, NotImplementedError) as exc:
        raise BundleError(f"{info.filename[:200]!r} in the export cannot be read: {exc}") from exc


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


_COUNT_CAP = 10**15  # an expanded count this large is a bomb whatever the document


def expanded_nodes(root: yaml.Node) -> tuple[int, int]:
    """(nodes the document has once its aliases are expanded, at most ``_COUNT_CAP``;
    nodes it really has). Iterative, linear in the real nodes. A recursive alias (a node
    inside itself) is a BundleError."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, closing = stack.pop()
        key = id(node)
        if closing:
            total = 1 + sum(sizes[id(kid)] for kid in _children(node))
            sizes[key] = min(total, _COUNT_CAP)
            open_nodes.discard(key)
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise BundleError("a YAML alias refers to itself")
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((kid, False) for kid in _children(node) if id(kid) not in sizes)
    return sizes[id(root)], len(sizes)


def load_yaml(data: bytes | str, name: str) -> Any:
    """``yaml.safe_load`` of ``data`` (the file ``name``), refusing an alias bomb, a
    recursive alias and nesting deeper than Python can build."""
    loader = _Loader(data)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        expanded, real = expanded_nodes(node)
        if expanded > max(real * MAX_ALIAS_GROWTH, ALIAS_FLOOR):
            raise BundleError(
                f"{name} in the export expands through YAML aliases to over "
                f"{MAX_ALIAS_GROWTH} times its own size: refused as a YAML bomb"
            )
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise BundleError(f"{name} in the export is not valid YAML: {exc}") from exc
    except RecursionError:
        raise BundleError(f"{name} in the export nests too deeply to read") from None
    finally:
        loader.dispose()
