"""Which calls need a second person (four-eyes), and who may be that person: the
``[approval]`` section of the policy file. Pure: no I/O.

Format::

    [approval]
    second_person = ["dangerous@prod", "write@prod"]   # <risk>@<tier>
    approver_roles = ["admin"]                          # default: ["admin"]

A rule is ``<risk>@<tier>``. ``<risk>`` is the call's risk in either of the words the
product uses for it: the confirmation card's level (``guarded``, ``dangerous``) or the
tool's risk (``write``, ``delete``) — ``write`` and ``guarded`` are one class, ``delete``
and ``dangerous`` the other; a rule names exactly its class (``write@prod`` does not
cover a delete: list both). ``<tier>`` is ``dev``, ``staging``, ``prod`` or ``*`` (any).
A read call never waits for a person, so ``read``/``safe`` are refused. With no section
(the default) nobody waits for a second person: the behaviour before four-eyes.

:func:`needs_second_person` answers for one call (its risk level and its environment's
tier, both as the confirmation contract states them); :func:`may_approve` for one role.
A call's requester can never approve it: the core checks that, by identity, not here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from app.vocab import ENV_TIERS, RISK_LEVEL, RiskLevel

ANY_TIER = "*"
DEFAULT_APPROVER_ROLES: tuple[str, ...] = ("admin",)
#: the words a rule may use for a risk, each with the confirmation level it means
RISK_WORDS: Mapping[str, RiskLevel] = {
    "guarded": "guarded",
    "dangerous": "dangerous",
    "write": RISK_LEVEL["write"],
    "delete": RISK_LEVEL["delete"],
}
_KEYS = ("second_person", "approver_roles")


@dataclass(frozen=True)
class SecondPersonRule:
    """One ``<risk>@<tier>`` entry: the confirmation level it covers and its tier (``*``:
    any); ``text`` is the entry as the operator wrote it."""

    level: RiskLevel
    tier: str
    text: str

    def covers(self, risk_level: str, tier: str | None) -> bool:
        """An unknown tier counts as prod (the product's one fail-safe rule)."""
        return risk_level == self.level and self.tier in (ANY_TIER, tier or "prod")


@dataclass(frozen=True)
class ApprovalPolicy:
    """The ``[approval]`` section: the rules (none: four-eyes is off) and the roles whose
    members may approve another person's call."""

    second_person: tuple[SecondPersonRule, ...] = ()
    approver_roles: tuple[str, ...] = DEFAULT_APPROVER_ROLES

    @property
    def enabled(self) -> bool:
        return bool(self.second_person)

    def as_dict(self) -> dict[str, Any]:
        """What ``GET /api/agent/tools`` shows of it."""
        return {
            "second_person": [rule.text for rule in self.second_person],
            "approver_roles": list(self.approver_roles),
        }


def needs_second_person(approval: ApprovalPolicy, risk_level: str, tier: str | None) -> bool:
    """Whether a confirmed call of ``risk_level`` on an environment of ``tier`` must also
    be approved by a second person before it runs."""
    return any(rule.covers(risk_level, tier) for rule in approval.second_person)


def may_approve(approval: ApprovalPolicy, role: str | None) -> bool:
    """Whether a person of ``role`` may approve another person's waiting call."""
    return role is not None and role in approval.approver_roles


class ApprovalSectionError(ValueError):
    """A bad ``[approval]`` section; ``needle`` is the text to find its line by."""

    def __init__(self, message: str, needle: str | None = None) -> None:
        super().__init__(message)
        self.needle = needle


def parse_rule(text: Any) -> SecondPersonRule:
    """One ``<risk>@<tier>`` entry, or :class:`ApprovalSectionError` saying what is wrong."""
    if not isinstance(text, str):
        raise ApprovalSectionError(
            f"second_person entries are text like 'dangerous@prod', got {text!r}"
        )
    risk, at, tier = text.strip().partition("@")
    risk, tier = risk.strip().lower(), tier.strip().lower()
    words = ", ".join(RISK_WORDS)
    if not at or not risk or not tier:
        raise ApprovalSectionError(
            f"second_person entry {text!r} must be <risk>@<tier>, e.g. 'dangerous@prod'", text
        )
    if risk in ("read", "safe"):
        raise ApprovalSectionError(
            f"second_person entry {text!r}: a {risk} call never waits for a person "
            f"(use one of {words})",
            text,
        )
    if risk not in RISK_WORDS:
        raise ApprovalSectionError(
            f"second_person entry {text!r}: unknown risk {risk!r} (one of {words})", text
        )
    tiers = (*ENV_TIERS, ANY_TIER)
    if tier not in tiers:
        raise ApprovalSectionError(
            f"second_person entry {text!r}: unknown tier {tier!r} (one of {', '.join(tiers)})",
            text,
        )
    return SecondPersonRule(level=RISK_WORDS[risk], tier=tier, text=f"{risk}@{tier}")


def parse_approval(data: Any, roles: Iterable[str]) -> ApprovalPolicy:
    """The parsed TOML table of ``[approval]`` (None: the default, off); ``roles``: the
    roles the policy knows. Raises :class:`ApprovalSectionError`."""
    if data is None:
        return ApprovalPolicy()
    if not isinstance(data, dict):
        raise ApprovalSectionError("[approval] must be a table")
    unknown = sorted(set(data) - set(_KEYS))
    if unknown:
        raise ApprovalSectionError(
            f"[approval] unknown key {unknown[0]!r} (allowed: {', '.join(_KEYS)})", unknown[0]
        )
    entries = data.get("second_person", [])
    if not isinstance(entries, list):
        raise ApprovalSectionError("[approval] second_person must be a list", "second_person")
    rules = tuple(dict.fromkeys(parse_rule(entry) for entry in entries))
    known = tuple(roles)
    approvers = data.get("approver_roles", list(DEFAULT_APPROVER_ROLES))
    if (
        not isinstance(approvers, list)
        or not approvers
        or not all(isinstance(r, str) for r in approvers)
    ):
        raise ApprovalSectionError(
            "[approval] approver_roles must be a non-empty list of role names", "approver_roles"
        )
    for role in approvers:
        if role not in known:
            raise ApprovalSectionError(
                f"[approval] approver_roles: unknown role {role!r} (known: {', '.join(known)})",
                role,
            )
    return ApprovalPolicy(second_person=rules, approver_roles=tuple(dict.fromkeys(approvers)))
