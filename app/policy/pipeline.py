"""Which tools a person may see and run: RBAC first, then the page context.

Pure: the functions that look tools up by name take the ``policy`` in force as an
optional keyword (default: the product's own, :func:`app.policy.config.default_policy`;
``app.agent.rules.Rules.policy()`` on the agent side) and return values. A denial is a
value (``Decision(outcome='deny')``), never an error. The contract's calls work as the
contract writes them: ``build_tool_pipeline(tools, user_role, object_type)``,
``enforce_tool_permission(tool_name, user_role)``.

Permission rule for role *r* and tool *t*: allowed when *r* is in ``t.roles``. Any
other role than admin and analyst (a policy file's extra role, or an unknown one)
also gets least privilege: the read-risk tools open to both built-in roles.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from app.policy.config import Policy, default_policy, in_force
from app.policy.tables import ALL_ROLES
from app.policy.toolspec import ToolSpec
from app.vocab import OBJECT_TYPES

T = TypeVar("T")
Outcome = Literal["allow", "deny", "error"]
Layer = Literal["rbac", "context"]


@dataclass(frozen=True)
class Exclusion:
    """One tool left out of a turn, and why."""

    name: str
    reason: str
    layer: Layer

    def __str__(self) -> str:
        return f"{self.name} excluded ({self.layer}): {self.reason}"


@dataclass(frozen=True)
class PipelineResult(Generic[T]):
    tools: list[T]
    excluded: list[Exclusion]

    @property
    def names(self) -> list[str]:
        return [_name_of(t) for t in self.tools]


@dataclass(frozen=True)
class Decision:
    """Whether a role may run a tool. ``error`` means the tool does not exist."""

    outcome: Outcome
    reason: str
    required_role: str | None = None

    @property
    def allowed(self) -> bool:
        return self.outcome == "allow"


def _name_of(tool: Any) -> str:
    if isinstance(tool, str):
        return tool
    name = getattr(tool, "name", None)
    if not isinstance(name, str):
        raise TypeError(f"a tool must be a name or have a str .name, got {type(tool).__name__}")
    return name


def _no_log(_: Exclusion) -> None:
    return None


def _spec_of(tool: Any, name: str, policy: Policy | None) -> ToolSpec | None:
    if policy is not None:
        return policy.spec(name)
    if isinstance(tool, ToolSpec):
        return tool
    return default_policy().spec(name)


def role_may_run(spec: ToolSpec, user_role: str | None) -> bool:
    """The permission rule (see the module docstring)."""
    if user_role is not None and user_role in spec.roles:
        return True
    if user_role in ALL_ROLES:
        return False
    return spec.risk == "read" and ALL_ROLES <= spec.roles


def required_role_for(spec: ToolSpec) -> str:
    """The role to name when a call is refused: admin if it may, else the first allowed."""
    return "admin" if "admin" in spec.roles else min(spec.roles)


def enforce_tool_permission(
    tool_name: str, user_role: str | None, *, policy: Policy | None = None
) -> Decision:
    """Invocation-time RBAC: allow, deny (with the required role) or error (unknown tool),
    under ``policy`` (default: the product's)."""
    policy = in_force(policy)
    spec = policy.spec(tool_name)
    if spec is None:
        return Decision("error", f"unknown tool {tool_name!r}")
    if role_may_run(spec, user_role):
        return Decision("allow", f"role {user_role} may run {tool_name}")
    required = required_role_for(spec)
    if user_role is None or not policy.is_known_role(user_role):
        return Decision(
            "deny", f"unknown role {user_role!r} may only run read tools", required_role=required
        )
    return Decision("deny", f"requires role {required}", required_role=required)


def build_tool_pipeline(
    tools: Iterable[T],
    user_role: str | None,
    object_type: str | None,
    *,
    policy: Policy | None = None,
    log: Callable[[Exclusion], object] = _no_log,
) -> PipelineResult[T]:
    """Filter ``tools`` (names, ToolSpecs or anything with ``.name``) for one turn.

    RBAC first (security), then the context affinity of ``object_type`` (UX). A tool
    offered on every page (``always_included``: what the agent can do) survives the
    context layer always. A null or unknown
    ``object_type`` keeps every RBAC-allowed tool. ``log`` receives each Exclusion
    (e.g. for the CoT log).

    Each tool is judged by ``policy``'s spec of its name. Without a ``policy``, a ToolSpec
    is judged as given and a name (or anything else with a ``.name``) by the product's
    catalog. Tools missing from the catalog that judges them are excluded.
    """
    context = object_type if object_type in OBJECT_TYPES else None
    kept: list[T] = []
    excluded: list[Exclusion] = []
    for tool in tools:
        name = _name_of(tool)
        spec = _spec_of(tool, name, policy)
        exclusion: Exclusion | None = None
        if spec is None:
            exclusion = Exclusion(name, "unknown tool (not in the catalog)", "rbac")
        elif not role_may_run(spec, user_role):
            exclusion = Exclusion(name, f"requires role {required_role_for(spec)}", "rbac")
        elif context and not spec.always_included and context not in spec.affinity:
            exclusion = Exclusion(name, f"not relevant to {context} context", "context")
        if exclusion is None:
            kept.append(tool)
        else:
            excluded.append(exclusion)
            log(exclusion)
    return PipelineResult(kept, excluded)


def alternatives_for(
    user_role: str | None,
    object_type: str | None,
    exclude: str | Iterable[str] | None = None,
    *,
    policy: Policy | None = None,
    limit: int = 4,
    lang: str = "en",
) -> list[dict[str, str]]:
    """Up to ``limit`` tools this role may run in this context, as ``{action, prompt}``,
    under ``policy`` (default: the product's); the prompt in ``lang``.

    Ranked: same family as the excluded tool(s), then sharing their contexts, then read
    tools, then catalog order; a tool offered on every page (what the agent can do) only as
    a last resort. A tool whose example asks about the page's object ("Check the health of
    this dashboard") is offered only on a page with an object.
    """
    policy = in_force(policy)
    excluded = {exclude} if isinstance(exclude, str) else set(exclude or ())
    refused = [s for n in excluded if (s := policy.spec(n)) is not None]
    families = {s.family for s in refused}
    contexts = {c for s in refused for c in s.affinity}
    allowed = build_tool_pipeline(policy.catalog.values(), user_role, object_type, policy=policy)
    order = {name: i for i, name in enumerate(policy.catalog)}
    candidates = [
        s
        for s in allowed.tools
        if s.name not in excluded and (object_type is not None or not s.example_needs_page)
    ]

    def rank(spec: ToolSpec) -> tuple[int, ...]:
        return (
            spec.always_included,
            spec.family not in families,
            not (spec.affinity & contexts),
            spec.risk != "read",
            order[spec.name],
        )

    ranked = sorted(candidates, key=rank)[: max(limit, 0)]
    return [{"action": s.name, "prompt": _prompt(s, lang)} for s in ranked]


def _prompt(spec: ToolSpec, lang: str) -> str:
    if spec.example is not None:
        return spec.example.ru if lang == "ru" else spec.example.en
    return spec.example_prompt or f"Run {spec.name}"
