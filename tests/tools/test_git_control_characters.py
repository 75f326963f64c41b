"""Git history keeps no terminal escapes: a commit message, a branch name or an author
name holding ESC, an OSC-8 hyperlink, BEL or another control character (a message's
newline and tab aside) is refused, naming the field — by the args model (the guard's
``invalid_arguments``), and again by the repository below it (``git log`` in a terminal
would run what history holds)."""

from __future__ import annotations

import dataclasses
import subprocess
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from app.errors import ToolError
from app.gitrepo import GitError, GitRepo, user_identity
from app.parts import Parts
from app.tools.git.spec import CommitChangesArgs, CreateBranchArgs
from tests.agent.harness import first
from tests.agent.scripted import call, recording_tools
from tests.tools.test_ops_tools_unit import call as run
from tests.tools.test_ops_tools_unit import deps_for, superset

OSC8 = "\x1b]8;;https://evil.example/\x07release notes\x1b]8;;\x07"

ROWS = [
    # (args model, field, value, refused?)
    (CommitChangesArgs, "message", "Fix \x1b[31mred\x1b[0m totals", True),  # ESC colours
    (CommitChangesArgs, "message", f"See {OSC8}", True),  # an OSC-8 link hiding its target
    (CommitChangesArgs, "message", "ding\x07", True),  # BEL
    (CommitChangesArgs, "message", "line\rover", True),  # CR rewrites the line shown
    (CommitChangesArgs, "message", "csi\x9b2J", True),  # the 8-bit CSI (C1)
    (CommitChangesArgs, "message", "nul\x00", True),  # NUL
    (CommitChangesArgs, "message", "del\x7f", True),  # DEL
    (CommitChangesArgs, "message", "Subject\n\nBody:\n\t- item", False),  # newline, tab: fine
    (CommitChangesArgs, "message", "Исправлены итоги — ok", False),  # any script: fine
    (CommitChangesArgs, "branch", "review/\x1b[2J", True),  # a branch name too
    (CommitChangesArgs, "branch", "review/x\x9by", True),  # C1: git itself accepts this one
    (CreateBranchArgs, "branch", "feature/a\tb", True),  # a branch name is one line, no tab
    (CreateBranchArgs, "branch", "feature/a\nb", True),  # nor a newline
    (CreateBranchArgs, "branch", "feature/sales", False),  # a plain name
]


def _args(model: type[BaseModel], field: str, value: str) -> dict[str, Any]:
    base: dict[str, Any] = {"message": "m"} if model is CommitChangesArgs else {"branch": "b"}
    return {**base, field: value}


@pytest.mark.parametrize(("model", "field", "value", "refused"), ROWS)
def test_the_args_model_refuses_control_characters_naming_the_field(
    model: type[BaseModel], field: str, value: str, refused: bool
) -> None:
    if not refused:
        assert getattr(model.model_validate(_args(model, field, value)), field) == value
        return
    with pytest.raises(ValidationError) as caught:
        model.model_validate(_args(model, field, value))
    [error] = caught.value.errors()
    assert error["loc"] == (field,) and error["type"].startswith("control_characters")
    assert "U+00" in error["msg"] and "at character" in error["msg"]


async def test_the_guard_refuses_the_call_as_invalid_arguments_and_nothing_runs(
    harness: Any,
) -> None:
    log: list[Any] = []
    harness.use(call("commit_changes", message=f"Release {OSC8}"), "ok", tools=recording_tools(log))
    events = await harness.run("commit the dashboards")
    error = first(events, "error")
    assert error["code"] == "invalid_arguments", error
    assert "message: " in error["message"] and "control characters" in error["message"]
    assert "confirm_required" not in [e["type"] for e in events] and log == []


@pytest.fixture
def repo(tmp_path: Any) -> GitRepo:
    r = GitRepo(tmp_path / "git")
    r.ensure()
    return r


@pytest.mark.parametrize(
    ("message", "author", "field"),
    [
        (f"Release {OSC8}", "alice", "commit message"),
        ("Release", "carol\x1b[8m", "author name"),  # an external identity's name
    ],
)
def test_the_repository_refuses_them_too_before_staging(
    repo: GitRepo, message: str, author: str, field: str
) -> None:
    (repo.path / "dev").mkdir()
    (repo.path / "dev" / "a.yaml").write_text("a: 1\n", encoding="utf-8")
    head = repo.head()
    with pytest.raises(GitError, match=f"^{field} must not hold control characters"):
        repo.commit(message, author=user_identity(author), paths=["dev"])
    assert repo.head() == head
    assert repo.run("diff", "--cached", "--name-only").stdout == ""  # nothing staged


def test_a_branch_name_git_would_accept_with_a_c1_control_is_refused(repo: GitRepo) -> None:
    name = "review/x\x9by"
    ok = subprocess.run(["git", "check-ref-format", "--branch", name], capture_output=True)
    assert ok.returncode == 0  # git alone would keep it
    with pytest.raises(GitError, match=r"^branch name must not hold control characters"):
        repo.new_branch(name)
    assert repo.branches() == ["main"]


def test_a_message_with_newlines_and_tabs_is_kept_as_written(repo: GitRepo) -> None:
    (repo.path / "dev").mkdir()
    (repo.path / "dev" / "a.yaml").write_text("a: 1\n", encoding="utf-8")
    message = "Subject\n\nBody\n\t- item"
    assert repo.commit(message, author=user_identity("alice"), paths=["dev"]).committed
    assert repo.run("log", "-1", "--format=%B").stdout.rstrip("\n") == message


async def test_an_author_name_with_an_escape_stops_commit_changes_before_the_export(
    parts: Parts,
) -> None:
    fake = superset()
    deps = dataclasses.replace(deps_for(fake, parts), user_id="carol\x1b]0;pwned\x07")
    with pytest.raises(ToolError, match=r"^author name must not hold control characters"):
        await run("commit_changes", deps, message="m", dashboard_ids=["1"])
    assert not [r for r in fake.requests if "export" in r.url.path]
