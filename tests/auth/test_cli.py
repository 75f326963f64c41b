"""``python main.py users ...`` against a temporary data dir."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.auth import Principal, authenticate
from app.cli import users_main
from app.settings import Settings
from app.store.db import Database
from app.store.users import get_user_by_name
from tests.server_proc import python, server_env


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("SS_TOOLS_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("SS_TOOLS_DATABASE_URL", raising=False)
    yield tmp_path


def _login(username: str, password: str, settings: Settings | None = None) -> Principal | None:
    """Sign in against the database of ``settings`` (default: read from the environment,
    as the CLI and the server do)."""
    db = Database.open((settings if settings is not None else Settings()).db_url)
    try:
        with db.session() as session:
            return authenticate(session, username=username, password=password)
    finally:
        db.dispose()


def test_added_user_can_log_in_and_is_listed(data_dir: Path, capsys) -> None:
    assert users_main(["add", "alice", "--role", "analyst", "--password", "s3cret-pw"]) == 0
    assert users_main(["list"]) == 0
    out = capsys.readouterr().out
    assert "created user 'alice' with role analyst" in out
    header, row = out.strip().splitlines()[-2:]
    assert header.split() == ["USERNAME", "ROLE", "CREATED", "(UTC)", "DISABLED"]
    assert row.split()[:2] == ["alice", "analyst"] and row.split()[-1] == "no"
    assert "s3cret-pw" not in out
    assert (data_dir / "ss_tools.db").exists()
    assert _login("alice", "s3cret-pw").role == "analyst"


def test_list_without_users_says_so(data_dir: Path, capsys) -> None:
    assert users_main(["list"]) == 0
    assert capsys.readouterr().out.strip() == "(no users)"


def test_password_can_come_from_stdin(data_dir: Path, monkeypatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("from-stdin-pw\n"))
    assert users_main(["add", "bob", "--role", "admin", "--password-stdin"]) == 0
    assert _login("bob", "from-stdin-pw").role == "admin"


def test_passwd_replaces_the_password(data_dir: Path) -> None:
    users_main(["add", "carol", "--role", "admin", "--password", "old-password"])
    assert users_main(["passwd", "carol", "--password", "new-password"]) == 0
    assert _login("carol", "old-password") is None
    assert _login("carol", "new-password").user_id == "carol"


def test_disabled_user_cannot_log_in_until_enabled(data_dir: Path, capsys) -> None:
    users_main(["add", "dave", "--role", "analyst", "--password", "dave-password"])
    assert users_main(["disable", "dave"]) == 0
    assert _login("dave", "dave-password") is None
    users_main(["list"])
    assert capsys.readouterr().out.strip().splitlines()[-1].split()[-1] == "yes"
    assert users_main(["enable", "dave"]) == 0
    assert _login("dave", "dave-password") is not None


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        # an unknown role is named in the error
        (["add", "eve", "--role", "root", "--password", "long-enough"], 2, "unknown role 'root'"),
        # a short password is refused before anything is stored
        (["add", "eve", "--role", "analyst", "--password", "short"], 2, "password too short"),
        # a name with spaces or slashes is refused
        (
            ["add", "eve smith", "--role", "analyst", "--password", "long-enough"],
            2,
            "invalid user name",
        ),
        # changing the password of a user that does not exist
        (["passwd", "nobody", "--password", "long-enough"], 1, "no user 'nobody'"),
        # disabling a user that does not exist
        (["disable", "nobody"], 1, "no user named 'nobody'"),
        # the password is required
        (["add", "eve", "--role", "analyst"], 2, "one of the arguments"),
        # both password sources at once
        (
            ["add", "eve", "--role", "analyst", "--password", "x" * 9, "--password-stdin"],
            2,
            "not allowed with argument",
        ),
        # no subcommand
        ([], 2, "required"),
        # an unknown subcommand
        (["rename", "eve"], 2, "invalid choice"),
    ],
)
def test_bad_invocations_fail_with_a_clear_message(
    data_dir: Path, capsys, argv: list[str], code: int, message: str
) -> None:
    assert users_main(argv) == code
    assert message in capsys.readouterr().err


def test_adding_a_duplicate_user_fails_and_keeps_the_first(data_dir: Path, capsys) -> None:
    assert users_main(["add", "frank", "--role", "admin", "--password", "first-pass"]) == 0
    assert users_main(["add", "frank", "--role", "analyst", "--password", "second-pass"]) == 1
    assert "user 'frank' already exists" in capsys.readouterr().err
    principal = _login("frank", "first-pass")
    assert principal is not None and principal.role == "admin"


def test_users_add_and_passwd_hash_at_the_settings_cost(data_dir: Path) -> None:
    """The CLI writes hashes at ``SS_TOOLS_SCRYPT_N`` (the suite's is cheap; production
    keeps 2**14); the cost is stored with each hash, so it still verifies."""
    settings = Settings(scrypt_n=32)
    assert (
        users_main(
            ["add", "dora", "--role", "admin", "--password", "pw-12345678"], settings=settings
        )
        == 0
    )

    def stored_n() -> str:
        db = Database.open(settings.db_url)
        try:
            with db.session() as session:
                user = get_user_by_name(session, username="dora")
                assert user is not None and user.password_hash
                return user.password_hash.split("$")[1]
        finally:
            db.dispose()

    assert stored_n() == "32"
    settings = Settings(scrypt_n=64)
    assert users_main(["passwd", "dora", "--password", "pw-87654321"], settings=settings) == 0
    assert stored_n() == "64"
    assert _login("dora", "pw-87654321", settings).role == "admin"


_HEAVY = ("nicegui", "langgraph", "langchain_core", "joserfc", "app.agent", "app.web", "httpx")


def test_users_command_loads_no_server_module(tmp_path: Path) -> None:
    """``python main.py users list`` answers without importing the server, the agent or
    the JWT libraries (it took 7 s when it did; about one second now)."""
    probe = (
        "import runpy, sys\n"
        "sys.argv = ['main.py', 'users', 'list']\n"
        "try:\n"
        "    runpy.run_path('main.py', run_name='__main__')\n"
        "except SystemExit as exc:\n"
        "    assert exc.code == 0, exc.code\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {_HEAVY!r} "
        f"or m.startswith({_HEAVY!r})))\n"
    )
    done = python(server_env(tmp_path), "-c", probe)
    out = done.stdout.strip().splitlines()
    assert out[0] == "(no users)"
    assert out[-1] == "[]", out[-1]
