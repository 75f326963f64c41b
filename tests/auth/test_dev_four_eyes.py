"""The sandbox turns four-eyes on, so a newcomer sees it: ``python main.py start`` in dev
mode writes a policy file with ``[approval]`` (unless one is configured) and creates a
second admin, ``approver``, whose password is only in a private file."""

from __future__ import annotations

import stat
from pathlib import Path

from app.bootstrap import prepare_local_run
from app.policy import DEFAULT_POLICY, load_policy, needs_second_person
from app.settings import Settings
from tests.auth.test_bootstrap import local_run  # noqa: F401  (the fixture)
from tests.auth.test_cli import _login


def test_a_dev_run_turns_four_eyes_on_with_a_second_admin(local_run: Path, capsys) -> None:  # noqa: F811
    result = prepare_local_run(Settings())
    policy_file = result.settings.policy_file
    assert policy_file == (local_run / "policy.toml").resolve()
    approval = load_policy(policy_file, policy=DEFAULT_POLICY).approval
    assert needs_second_person(approval, "dangerous", "prod")
    assert not needs_second_person(approval, "dangerous", "dev")
    secret = local_run / "second-admin.txt"
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    password = next(
        line.split(": ", 1)[1] for line in secret.read_text().splitlines()
        if line.startswith("password: ")
    )  # fmt: skip
    out = capsys.readouterr().out
    assert "Second admin: approver — password in data/second-admin.txt" in out
    assert password not in out
    approver = _login("approver", password)
    assert approver is not None and approver.role == "admin"

    again = prepare_local_run(Settings())  # a restart keeps both and says nothing of them
    assert again.approver_file is None and again.settings.policy_file == policy_file
    assert "Second admin" not in capsys.readouterr().out


def test_an_operators_policy_file_is_left_alone(local_run: Path, monkeypatch) -> None:  # noqa: F811
    own = local_run.parent / "mine.toml"
    own.write_text("[roles]\nextra = []\n")
    monkeypatch.setenv("SS_TOOLS_POLICY_FILE", str(own))
    result = prepare_local_run(Settings())
    assert result.settings.policy_file == own
    assert not (local_run / "policy.toml").exists()
