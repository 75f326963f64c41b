"""A real git repository under the data dir, driven through the ``git`` CLI.

Every call is ``git -C <repo> ...`` in a subprocess with a timeout; a failure becomes a
:class:`~app.errors.ToolError` carrying git's stderr (git never sees credentials, so its
stderr is safe to show). The repository is created on first use with a ``main`` branch
and an initial commit. Calls are synchronous: async callers wrap them in
``asyncio.to_thread``. One lock per repository path serialises writers inside a process.
What history keeps — a commit message, an author name, a branch name — holds no control
character but a message's newline and tab (:func:`check_text`).

Branch scope: :meth:`GitRepo.set_branch_scope` remembers, in the repository's own config
(``branch.<name>.ss-tools-dashboards`` / ``ss-tools-env``), which dashboards a branch was
created for, so a commit without dashboard ids knows what to export.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from app.errors import ToolError
from app.text import control_character

AGENT_NAME = "ss-tools agent"
AGENT_EMAIL = "agent@ss-tools.local"
_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


class GitError(ToolError):
    """A git command failed; the message holds the command and git's stderr."""


@dataclass(frozen=True)
class CommitResult:
    committed: bool
    sha: str
    branch: str
    files_changed: list[str] = field(default_factory=list)
    message: str = ""


def _lock_for(path: Path) -> threading.Lock:
    key = str(path.resolve())
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(key, threading.Lock())


def check_text(field: str, value: str, allowed: str = "") -> None:
    """Refuse ``value`` (the ``field`` git would keep) when it holds a control character
    not in ``allowed``: ``git log`` in a terminal would run it (ESC, OSC-8 links, BEL)."""
    if (found := control_character(value, allowed)) is not None:
        raise GitError(f"{field} must not hold control characters (found {found})")


def user_identity(user: str) -> tuple[str, str]:
    """The author name and e-mail used for ``user``'s commits."""
    name = user.strip() or "unknown"
    local = "".join(ch if ch.isalnum() or ch in "._-" else "-" for ch in name) or "user"
    return name, f"{local}@ss-tools.local"


class GitRepo:
    """One git repository (created on first use by :meth:`ensure`)."""

    def __init__(self, path: Path, *, timeout_s: float = 30.0) -> None:
        self.path = Path(path)
        self.timeout_s = timeout_s
        self.lock = _lock_for(self.path)

    # -- plumbing ------------------------------------------------------------------
    def _env(self, author: tuple[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(
            GIT_CONFIG_NOSYSTEM="1",
            GIT_TERMINAL_PROMPT="0",
            GIT_COMMITTER_NAME=AGENT_NAME,
            GIT_COMMITTER_EMAIL=AGENT_EMAIL,
            GIT_AUTHOR_NAME=(author or (AGENT_NAME, AGENT_EMAIL))[0],
            GIT_AUTHOR_EMAIL=(author or (AGENT_NAME, AGENT_EMAIL))[1],
            LC_ALL="C",
        )
        return env

    def run(
        self, *args: str, check: bool = True, author: tuple[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        git = shutil.which("git")
        if git is None:
            raise GitError("git is not installed on this machine")
        cmd = [git, "-C", str(self.path), "-c", "commit.gpgsign=false", *args]
        try:
            proc = subprocess.run(
                cmd,
                capture_output=True,
                text=True,
                timeout=self.timeout_s,
                env=self._env(author),
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise GitError(f"git {args[0]} timed out after {self.timeout_s:.0f} s") from exc
        if check and proc.returncode != 0:
            detail = (proc.stderr or proc.stdout).strip()
            raise GitError(f"git {' '.join(args[:2])} failed: {detail}", returncode=proc.returncode)
        return proc

    # -- repository ----------------------------------------------------------------
    def ensure(self) -> None:
        """Create the repository with a ``main`` branch and an initial commit if missing."""
        if (self.path / ".git").is_dir():
            return
        self.path.mkdir(parents=True, exist_ok=True)
        self.run("init", "-q", "-b", "main")
        readme = self.path / "README.md"
        readme.write_text(
            "# ss-tools dashboards\n\nExports of Superset dashboards, one YAML file per "
            "object, under `<env_id>/`. Written by ss-tools agent.\n"
        )
        self.run("add", "README.md")
        self.run("commit", "-q", "-m", "Initial commit")

    def head(self) -> str:
        return self.run("rev-parse", "HEAD").stdout.strip()

    def current_branch(self) -> str:
        return self.run("symbolic-ref", "--short", "HEAD").stdout.strip()

    def branches(self) -> list[str]:
        out = self.run("for-each-ref", "--format=%(refname:short)", "refs/heads").stdout
        return sorted(line for line in out.splitlines() if line)

    def branch_exists(self, name: str) -> bool:
        proc = self.run("rev-parse", "--verify", "--quiet", f"refs/heads/{name}", check=False)
        return proc.returncode == 0

    def check_branch_name(self, name: str) -> None:
        """Refuse a name git would not accept as a branch (``git check-ref-format``)."""
        if not name or name.startswith("-"):
            raise GitError(f"invalid branch name {name!r}")
        check_text("branch name", name)
        proc = self.run("check-ref-format", "--branch", name, check=False)
        if proc.returncode != 0:
            raise GitError(f"invalid branch name {name!r}: git check-ref-format refused it")

    def new_branch(self, name: str, *, checkout: bool = True) -> None:
        self.check_branch_name(name)
        if self.branch_exists(name):
            raise GitError(f"branch {name!r} already exists")
        self.run("branch", name)
        if checkout:
            self.checkout(name)

    def checkout(self, name: str) -> None:
        if not self.branch_exists(name):
            raise GitError(f"branch {name!r} does not exist")
        self.run("checkout", "-q", name)

    def set_branch_scope(self, branch: str, *, env_id: str, dashboard_ids: list[str]) -> None:
        self.run("config", f"branch.{branch}.ss-tools-env", env_id)
        self.run("config", f"branch.{branch}.ss-tools-dashboards", ",".join(dashboard_ids))

    def branch_scope(self, branch: str) -> tuple[str | None, list[str]]:
        env = self.run("config", "--get", f"branch.{branch}.ss-tools-env", check=False)
        ids = self.run("config", "--get", f"branch.{branch}.ss-tools-dashboards", check=False)
        env_id = env.stdout.strip() or None
        return env_id, [i for i in ids.stdout.strip().split(",") if i]

    # -- content -------------------------------------------------------------------
    def _target(self, rel: str) -> Path:
        """The file for a repo-relative path; refuses ``..``, absolute paths, ``.git`` and
        anything that resolves outside the work tree or into ``.git`` (a symlink too)."""
        root = self.path.resolve()
        parts = PurePosixPath(rel.replace("\\", "/")).parts
        if (
            not parts
            or PurePosixPath(rel).is_absolute()
            or any(p in ("", ".", "..") or p.lower() == ".git" for p in parts)
        ):
            raise GitError(f"refusing to write outside the repository: {rel[:200]!r}")
        target = (root / Path(*parts)).resolve()
        git_dir = root / ".git"
        if root not in target.parents or target == git_dir or git_dir in target.parents:
            raise GitError(f"refusing to write outside the repository or into .git: {rel[:99]!r}")
        return target

    def write_files(self, files: dict[str, str], *, remove: Sequence[str] = ()) -> None:
        """Write ``files`` (repo-relative path → text) and delete ``remove`` paths. Every
        path is checked first (:meth:`_target`): nothing is written if one is unsafe."""
        removals = [self._target(rel) for rel in remove]
        writes = [(self._target(rel), text) for rel, text in sorted(files.items())]
        for target in removals:
            if target.is_file():
                target.unlink()
        for target, text in writes:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")

    def commit(self, message: str, *, author: tuple[str, str], paths: list[str]) -> CommitResult:
        """Stage ``paths`` (files or folders) and commit; "nothing to commit" is not an error.
        A message or author name holding a control character (but a message's newline and
        tab) is refused before anything is staged."""
        check_text("commit message", message, "\n\t")
        check_text("author name", author[0])
        branch = self.current_branch()
        self.run("add", "-A", "--", *paths)
        staged = self.run("diff", "--cached", "--name-only").stdout.split()
        if not staged:
            return CommitResult(False, self.head(), branch, [], "nothing to commit")
        self.run("commit", "-q", "-m", message, author=author)
        return CommitResult(True, self.head(), branch, sorted(staged), message)

    def ls_tree(self, ref: str = "HEAD") -> list[str]:
        return self.run("ls-tree", "-r", "--name-only", ref).stdout.split()

    def show(self, ref: str, rel: str) -> str:
        return self.run("show", f"{ref}:{rel}").stdout

    def log_author(self, ref: str = "HEAD") -> str:
        return self.run("log", "-1", "--format=%an <%ae>", ref).stdout.strip()

    # -- undo (a branch deleted, a commit reverted: never a history rewrite) -------------
    def branch_head(self, name: str) -> str | None:
        """The commit ``name`` points at, or None when there is no such branch."""
        proc = self.run("rev-parse", "--verify", "--quiet", f"refs/heads/{name}", check=False)
        return (proc.stdout.strip() or None) if proc.returncode == 0 else None

    def delete_branch(self, name: str, *, switch_to: str) -> None:
        """Delete branch ``name`` (checked out: ``switch_to`` first)."""
        self.check_branch_name(name)
        if self.current_branch() == name:
            self.checkout(switch_to)
        self.run("branch", "-D", name)

    def touched_since(self, sha: str, branch: str, paths: Sequence[str]) -> list[str]:
        """Of ``paths``, those a commit on ``branch`` after ``sha`` changed."""
        if not paths:
            return []
        out = self.run("diff", "--name-only", f"{sha}..refs/heads/{branch}", "--", *paths).stdout
        return sorted(line for line in out.splitlines() if line)

    def contains(self, branch: str, sha: str) -> bool:
        """Whether ``sha`` is in ``branch``'s history."""
        proc = self.run("merge-base", "--is-ancestor", sha, f"refs/heads/{branch}", check=False)
        return proc.returncode == 0

    def revert(self, sha: str, *, author: tuple[str, str]) -> str:
        """A new commit undoing ``sha`` on the current branch (its author ``author``);
        the new commit's id."""
        self.run("revert", "--no-edit", sha, author=author)
        return self.head()
