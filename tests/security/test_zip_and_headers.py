"""Export names cannot reach ``.git`` or leave the export folder, and
pages and API send anti-framing headers."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
import yaml
from nicegui.testing import User

from app.gitrepo import GitError, GitRepo
from app.superset.bundle import BundleError, git_files, read_bundle
from tests.tools.export_zip import export_docs, make_export_zip

ROOT = "dashboard_export_20261130T040000"


def crafted_zip(member: str) -> bytes:
    """A valid export plus one extra member named ``member``."""
    buf = io.BytesIO(make_export_zip())
    with zipfile.ZipFile(buf, "a") as zf:
        zf.writestr(member, yaml.safe_dump({"uuid": "x"}))
    return buf.getvalue()


@pytest.mark.parametrize(
    "member",
    [
        f"{ROOT}/dashboards/../../.git/hooks/x.yaml",  # the probe
        f"{ROOT}/../outside.yaml",  # up and out of the export folder
        f"{ROOT}/.git/config.yaml",  # straight into .git
        f"{ROOT}/charts/.GIT/x.yaml",  # .git in another case
        "/etc/ss-tools.yaml",  # absolute
        f"{ROOT}\\..\\..\\x.yaml",  # Windows separators
        "C:/x.yaml",  # a drive
        f"{ROOT}/./charts/x.yaml",  # dot segments
    ],
)
def test_crafted_export_member_is_refused(member: str) -> None:
    with pytest.raises(BundleError, match="unsafe path"):
        read_bundle(crafted_zip(member))


def test_plain_export_is_still_read() -> None:
    assert "metadata.yaml" in read_bundle(make_export_zip(export_docs())).files


@pytest.mark.parametrize(
    "rel",
    [
        ".git/hooks/pre-commit",  # the repository's own hooks
        "dev/../.git/config",  # through a dot-dot
        "../evil.yaml",  # outside the work tree
        "/tmp/evil.yaml",  # absolute
        "dev/.Git/x.yaml",  # .git in another case
    ],
)
def test_git_paths_outside_the_work_tree_or_into_git_are_refused(tmp_path: Path, rel: str) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.ensure()
    hooks = sorted(p.name for p in (repo.path / ".git" / "hooks").iterdir())
    with pytest.raises(GitError, match="outside the repository"):
        repo.write_files({"dev/ok.yaml": "ok: 1\n", rel: "x"})
    assert not (repo.path / "dev" / "ok.yaml").exists()  # nothing written at all
    assert sorted(p.name for p in (repo.path / ".git" / "hooks").iterdir()) == hooks
    with pytest.raises(GitError):
        repo.write_files({}, remove=[rel])


def test_export_for_an_env_named_git_cannot_write_into_git(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.ensure()
    files = git_files(read_bundle(make_export_zip()), ".git")
    with pytest.raises(GitError):
        repo.write_files(files)
    assert not (repo.path / ".git" / "metadata.yaml").exists()


async def test_pages_and_api_send_anti_framing_headers(user: User) -> None:
    for path in ("/api/health", "/login", "/api/nope"):
        r = await user.http_client.get(path)
        assert r.headers["content-security-policy"] == "frame-ancestors 'self'", path
        assert r.headers["x-frame-options"] == "SAMEORIGIN", path
        assert r.headers["x-content-type-options"] == "nosniff", path
        assert r.headers["referrer-policy"] == "same-origin", path


@pytest.mark.app_env(frame_ancestors="'self' https://superset.example.com")
async def test_frame_ancestors_setting_lets_superset_embed_the_agent(user: User) -> None:
    r = await user.http_client.get("/login")
    policy = r.headers["content-security-policy"]
    assert policy == "frame-ancestors 'self' https://superset.example.com"
    assert "x-frame-options" not in r.headers  # it cannot name another origin
