"""The optional policy file (``policy.toml``, path in ``Settings.policy_file``).

Format::

    [roles]
    extra = ["viewer"]          # more role names that tool role lists may use

    [tools.<tool name>]
    roles = ["admin"]           # who may run it (known roles only, non-empty)
    timeout_s = 45              # 0 < timeout_s <= 3600
    confirm = "always"          # "auto" | "always" | "never"

    [approval]                  # four-eyes (app.policy.approval): off unless listed
    second_person = ["dangerous@prod"]
    approver_roles = ["admin"]

Rules: unknown sections, keys, tool names or role names are a ``ConfigError`` naming
the file and the offending name (and, for ``[approval]``, its line). ``confirm =
"never"`` is only allowed on read tools: guarded (write) and dangerous (delete) tools
always need a person's confirmation.
``confirm = "always"`` makes even a read tool show a card.

An extra role may be named in tool role lists. Every role other than ``admin`` and
``analyst`` (extra or unknown) gets least privilege, the read tools open to both
built-in roles, plus the tools that list it. Roles are matched exactly.

The policy applies to the catalog it is given: ``load_policy(path, policy=base)``
overrides ``base``'s catalog. :func:`default_policy` is the product's own (its catalog,
:data:`app.tools.catalog.TOOL_CATALOG`, imported on first use so that importing
:mod:`app.policy` stays cheap; no file), the default of every function that takes
``policy=``, so the contract's calls work as it writes them; ``app.agent.rules.Rules.
policy()`` is the policy in force (that catalog, or a test's, plus
``Settings.policy_file``).

This module is the only part of :mod:`app.policy` that reads a file; the rest is pure.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from app.errors import ConfigError
from app.policy.approval import ApprovalPolicy, ApprovalSectionError, parse_approval
from app.policy.toolspec import ToolSpec
from app.vocab import ROLES

_TOOL_KEYS = frozenset({"roles", "timeout_s", "confirm"})
_CONFIRM_VALUES = ("auto", "always", "never")
MAX_TIMEOUT_S = 3600.0
DANGEROUS_COUNTDOWN_S = 10
NO_SECOND_PERSON = ApprovalPolicy()  # four-eyes off (no [approval] section)


@dataclass(frozen=True, eq=False)
class Policy:
    """The effective catalog: the catalog it was given plus a policy file's overrides."""

    catalog: Mapping[str, ToolSpec]
    roles: tuple[str, ...] = ROLES
    path: Path | None = None
    #: how long a dangerous call's card waits before it can be confirmed
    countdown_s: int = DANGEROUS_COUNTDOWN_S
    #: which confirmed calls also need a second person, and who may approve them
    approval: ApprovalPolicy = NO_SECOND_PERSON

    def __post_init__(self) -> None:
        # read-only view: a policy in force cannot be changed behind the pipeline's back
        object.__setattr__(self, "catalog", MappingProxyType(dict(self.catalog)))

    def spec(self, name: str) -> ToolSpec | None:
        return self.catalog.get(name)

    def is_known_role(self, role: str | None) -> bool:
        return role in self.roles


def product_catalog() -> Mapping[str, ToolSpec]:
    """The product's catalog (the one place policy reaches for it: the tools' specs)."""
    from app.tools.catalog import TOOL_CATALOG

    return TOOL_CATALOG


@cache
def default_policy() -> Policy:
    """The product's policy: its own catalog, no policy file (one object)."""
    return Policy(catalog=product_catalog())


def in_force(policy: Policy | None) -> Policy:
    """``policy``, or the product's (:func:`default_policy`) when none is given."""
    return default_policy() if policy is None else policy


def _fail(path: Path, message: str) -> ConfigError:
    return ConfigError(f"{path}: {message}", path=str(path))


def _roles_section(path: Path, data: Any) -> tuple[str, ...]:
    if data is None:
        return ROLES
    if not isinstance(data, dict) or set(data) - {"extra"}:
        unknown = sorted(set(data) - {"extra"}) if isinstance(data, dict) else data
        raise _fail(path, f"[roles] accepts only 'extra'; got {unknown!r}")
    extra = data.get("extra", [])
    if not isinstance(extra, list) or not all(isinstance(r, str) and r.strip() for r in extra):
        raise _fail(path, "[roles] extra must be a list of non-empty role names")
    return tuple(dict.fromkeys([*ROLES, *extra]))


def _override(path: Path, spec: ToolSpec, data: Any, roles: tuple[str, ...]) -> ToolSpec:
    where = f"[tools.{spec.name}]"
    if not isinstance(data, dict):
        raise _fail(path, f"{where} must be a table")
    unknown = sorted(set(data) - _TOOL_KEYS)
    if unknown:
        raise _fail(
            path, f"{where} unknown key {unknown[0]!r} (allowed: roles, timeout_s, confirm)"
        )
    changes: dict[str, Any] = {}
    if "roles" in data:
        value = data["roles"]
        if not isinstance(value, list) or not value or not all(isinstance(r, str) for r in value):
            raise _fail(path, f"{where} roles must be a non-empty list of role names")
        for role in value:
            if role not in roles:
                raise _fail(path, f"{where} unknown role {role!r} (known: {', '.join(roles)})")
        changes["roles"] = frozenset(value)
    if "timeout_s" in data:
        value = data["timeout_s"]
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if not ok or not 0 < value <= MAX_TIMEOUT_S:
            raise _fail(path, f"{where} timeout_s must be a number in (0, {MAX_TIMEOUT_S:g}]")
        changes["timeout_s"] = float(value)
    if "confirm" in data:
        value = data["confirm"]
        if value not in _CONFIRM_VALUES:
            raise _fail(path, f"{where} confirm must be one of {', '.join(_CONFIRM_VALUES)}")
        if value == "never" and spec.risk != "read":
            raise _fail(
                path,
                f"{where} confirm = 'never' is refused: {spec.name} is a {spec.risk} tool "
                "and always needs a person's confirmation",
            )
        changes["confirm"] = value
    return dataclasses.replace(spec, **changes)


def _line_of(source: str | None, needle: str | None) -> str:
    """ " (line N)" of the first line of ``source`` holding ``needle``, else ""."""
    if not source or not needle:
        return ""
    for number, line in enumerate(source.splitlines(), start=1):
        if needle in line:
            return f" (line {number})"
    return ""


def _approval_section(
    path: Path, data: Any, roles: tuple[str, ...], source: str | None
) -> ApprovalPolicy:
    try:
        return parse_approval(data, roles)
    except ApprovalSectionError as exc:
        raise _fail(path, f"{exc}{_line_of(source, exc.needle)}") from None


def policy_from_dict(
    data: dict[str, Any], path: Path, *, policy: Policy, source: str | None = None
) -> Policy:
    """``policy`` with the overrides of parsed TOML (``path`` is used in error messages;
    ``source``, the file's text, to name the line of a bad ``[approval]`` entry)."""
    unknown = sorted(set(data) - {"tools", "roles", "approval"})
    if unknown:
        raise _fail(path, f"unknown section {unknown[0]!r} (allowed: tools, roles, approval)")
    roles = _roles_section(path, data.get("roles"))
    approval = _approval_section(path, data.get("approval"), roles, source)
    tools = data.get("tools", {})
    if not isinstance(tools, dict):
        raise _fail(path, "[tools] must be a table of [tools.<name>] tables")
    catalog = dict(policy.catalog)
    for name, override in tools.items():
        spec = catalog.get(name)
        if spec is None:
            raise _fail(path, f"unknown tool {name!r} in [tools.{name}]")
        catalog[name] = _override(path, spec, override, roles)
    return Policy(
        catalog=catalog,
        roles=roles,
        path=path,
        countdown_s=policy.countdown_s,
        approval=approval,
    )


def load_policy(path: str | Path, *, policy: Policy) -> Policy:
    """Read and validate a policy file and apply it to ``policy`` (the defaults);
    ``ConfigError`` names the file and the problem."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise _fail(path, f"cannot read the policy file: {exc.strerror or exc}") from exc
    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except UnicodeDecodeError as exc:
        raise _fail(path, f"not UTF-8 text: {exc.reason}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise _fail(path, f"invalid TOML: {exc}") from exc
    return policy_from_dict(data, path, policy=policy, source=text)
