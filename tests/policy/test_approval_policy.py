"""The ``[approval]`` section of policy.toml (four-eyes): its grammar, its refusals naming
the line, and which calls need a second person."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.agent.rules import default_policy
from app.errors import ConfigError
from app.policy import load_policy, may_approve, needs_second_person
from app.policy.approval import ApprovalPolicy, parse_approval

BASE = default_policy()


def load(tmp_path: Path, text: str):
    path = tmp_path / "policy.toml"
    path.write_text(text, encoding="utf-8")
    return load_policy(path, policy=BASE)


def rules(*entries: str) -> ApprovalPolicy:
    return parse_approval({"second_person": list(entries)}, ("admin", "analyst"))


@pytest.mark.parametrize(
    ("entries", "level", "tier", "needed"),
    [
        ((), "dangerous", "prod", False),  # no section: four-eyes is off (today's behaviour)
        (("dangerous@prod",), "dangerous", "prod", True),  # the sandbox's rule
        (("dangerous@prod",), "guarded", "prod", False),  # a write is not a delete
        (("dangerous@prod",), "dangerous", "staging", False),  # another tier
        (("delete@prod",), "dangerous", "prod", True),  # the tool's word for the same class
        (("write@prod",), "guarded", "prod", True),  # write = guarded
        (("write@prod",), "dangerous", "prod", False),  # a rule names exactly its class
        (("dangerous@prod", "write@prod"), "guarded", "prod", True),  # the example
        (("write@*",), "guarded", "dev", True),  # any tier
        (("dangerous@prod",), "dangerous", None, True),  # no tier is treated as prod
        (("DANGEROUS @ Prod",), "dangerous", "prod", True),  # case and blanks forgiven
    ],
)
def test_which_calls_need_a_second_person(entries, level, tier, needed) -> None:
    assert needs_second_person(rules(*entries), level, tier) is needed


@pytest.mark.parametrize(
    ("text", "said"),
    [
        # not <risk>@<tier>
        ('second_person = ["prod"]', "must be <risk>@<tier>"),
        # a read never waits for anyone
        ('second_person = ["read@prod"]', "never waits for a person"),
        # a typo in the risk
        ('second_person = ["dangerus@prod"]', "unknown risk 'dangerus'"),
        # a typo in the tier
        ('second_person = ["dangerous@production"]', "unknown tier 'production'"),
        # a role the policy does not know
        ('approver_roles = ["boss"]', "unknown role 'boss'"),
        # nobody could approve
        ("approver_roles = []", "non-empty list"),
        # an unknown key
        ('second_persons = ["dangerous@prod"]', "unknown key 'second_persons'"),
    ],
)
def test_a_bad_section_is_refused_naming_the_entry_and_its_line(tmp_path, text, said) -> None:
    with pytest.raises(ConfigError) as refused:
        load(tmp_path, f"# four-eyes\n[approval]\n{text}\n")
    message = str(refused.value)
    assert said in message and "policy.toml" in message
    assert "(line 3)" in message  # the operator finds it at once


def test_the_section_is_read_with_its_default_approver_role(tmp_path) -> None:
    policy = load(tmp_path, '[approval]\nsecond_person = ["dangerous@prod", "write@prod"]\n')
    assert policy.approval.enabled
    assert policy.approval.as_dict() == {
        "second_person": ["dangerous@prod", "write@prod"],
        "approver_roles": ["admin"],
    }
    assert may_approve(policy.approval, "admin") and not may_approve(policy.approval, "analyst")


def test_an_extra_role_may_approve(tmp_path) -> None:
    policy = load(
        tmp_path,
        '[roles]\nextra = ["release_manager"]\n'
        '[approval]\nsecond_person = ["dangerous@*"]\napprover_roles = ["release_manager"]\n',
    )
    assert may_approve(policy.approval, "release_manager")
    assert not may_approve(policy.approval, "admin")


def test_no_policy_file_means_nobody_waits() -> None:
    assert not BASE.approval.enabled
    assert not needs_second_person(BASE.approval, "dangerous", "prod")
