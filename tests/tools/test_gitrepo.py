"""The data dir's git repository: init, branches, commits with the user as author."""

from __future__ import annotations

import pytest

from app.gitrepo import GitError, GitRepo, user_identity
from app.superset.bundle import git_files, read_bundle
from tests.tools.export_zip import export_docs, make_export_zip


@pytest.fixture
def repo(tmp_path) -> GitRepo:
    r = GitRepo(tmp_path / "git")
    r.ensure()
    return r


def test_first_use_creates_a_main_branch_with_an_initial_commit(repo):
    assert repo.current_branch() == "main"
    assert repo.ls_tree() == ["README.md"]
    assert len(repo.run("log", "--format=%H").stdout.split()) == 1
    head = repo.head()
    repo.ensure()  # a second call changes nothing
    assert repo.head() == head


def test_commit_of_an_export_stores_one_yaml_per_object_with_the_user_as_author(repo):
    files = git_files(read_bundle(make_export_zip()), "dev")
    repo.write_files(files)
    result = repo.commit("Export sales", author=user_identity("alice"), paths=["dev"])
    assert result.committed and result.branch == "main"
    assert result.sha == repo.head()
    assert result.files_changed == sorted(files)
    assert set(repo.ls_tree()) == {"README.md", *files}
    assert repo.log_author() == "alice <alice@ss-tools.local>"
    assert "slug: sales-overview" in repo.show("HEAD", "dev/dashboards/Sales_Overview_1.yaml")


def test_committing_the_same_export_again_is_nothing_to_commit(repo):
    repo.write_files(git_files(read_bundle(make_export_zip()), "dev"))
    first = repo.commit("one", author=user_identity("alice"), paths=["dev"])
    later = export_docs(timestamp="2030-01-01T00:00:00")  # only the volatile field differs
    repo.write_files(git_files(read_bundle(make_export_zip(later)), "dev"))
    second = repo.commit("two", author=user_identity("alice"), paths=["dev"])
    assert not second.committed
    assert second.message == "nothing to commit"
    assert second.sha == first.sha and second.files_changed == []


def test_a_changed_dashboard_commits_only_its_file(repo):
    repo.write_files(git_files(read_bundle(make_export_zip()), "dev"))
    repo.commit("one", author=user_identity("alice"), paths=["dev"])
    changed = git_files(read_bundle(make_export_zip(export_docs(title="Sales v2"))), "dev")
    repo.write_files(changed)
    result = repo.commit("retitle", author=user_identity("bob"), paths=["dev"])
    assert result.files_changed == ["dev/dashboards/Sales_Overview_1.yaml"]
    assert repo.log_author() == "bob <bob@ss-tools.local>"


def test_write_files_removes_stale_paths_and_refuses_to_escape_the_repo(repo):
    repo.write_files({"dev/charts/old.yaml": "uuid: x\n"})
    repo.write_files({"dev/charts/new.yaml": "uuid: x\n"}, remove=["dev/charts/old.yaml"])
    assert not (repo.path / "dev/charts/old.yaml").exists()
    with pytest.raises(GitError, match="outside the repository"):
        repo.write_files({"../evil.yaml": "x"})


def test_create_branch_checks_it_out_and_remembers_its_dashboards(repo):
    repo.new_branch("feature/sales")
    assert repo.current_branch() == "feature/sales"
    repo.set_branch_scope("feature/sales", env_id="dev", dashboard_ids=["1", "sales-overview"])
    assert repo.branch_scope("feature/sales") == ("dev", ["1", "sales-overview"])
    assert repo.branch_scope("main") == (None, [])
    repo.new_branch("side", checkout=False)
    assert repo.current_branch() == "feature/sales"
    assert repo.branches() == ["feature/sales", "main", "side"]


@pytest.mark.parametrize(
    "name",
    [
        "",  # empty
        "-rf",  # would be read as an option
        "has space",  # spaces are not allowed in refs
        "a..b",  # double dot
        "ends.lock",  # reserved suffix
        "tilde~1",  # revision syntax
        "colon:x",  # refspec separator
        "trailing/",  # empty last component
    ],
)
def test_invalid_branch_names_are_refused(repo, name):
    with pytest.raises(GitError, match="invalid branch name"):
        repo.new_branch(name)
    assert repo.branches() == ["main"]


def test_creating_an_existing_branch_is_an_error_naming_it(repo):
    with pytest.raises(GitError, match="'main' already exists"):
        repo.new_branch("main")


def test_git_failures_carry_gits_stderr(repo):
    with pytest.raises(GitError, match="does not exist"):
        repo.checkout("nope")
    with pytest.raises(GitError, match="git show"):
        repo.show("HEAD", "missing.yaml")


@pytest.mark.parametrize(
    ("user", "identity"),
    [
        ("alice", ("alice", "alice@ss-tools.local")),  # plain user id
        ("Ann Lee", ("Ann Lee", "Ann-Lee@ss-tools.local")),  # spaces cannot be in an e-mail
        ("  ", ("unknown", "unknown@ss-tools.local")),  # blank user still commits
    ],
)
def test_user_identity(user, identity):
    assert user_identity(user) == identity
