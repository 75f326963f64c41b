"""Local-run bootstrap: generated JWT secret, first admin, and the placeholder refusal."""

from __future__ import annotations

import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from app.auth import AuthGate, issue_token
from app.bootstrap import prepare_local_run
from app.errors import AuthError, ConfigError
from app.settings import DEFAULT_JWT_SECRET, Settings
from app.store import users
from app.store.db import Database
from tests.auth.test_cli import _login


@pytest.fixture
def local_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh data dir in dev mode with no secret configured (as `python dev.py start`)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SS_TOOLS_DEV", "1")
    monkeypatch.setenv("SS_TOOLS_DATA_DIR", "data")
    for name in ("JWT_SECRET", "JWT_SECRET_FILE", "DATABASE_URL"):
        monkeypatch.setenv(f"SS_TOOLS_{name}", "")  # so monkeypatch restores the original
        monkeypatch.delenv(f"SS_TOOLS_{name}")
    yield tmp_path / "data"


@contextmanager
def _gate(settings: Settings) -> Iterator[AuthGate]:
    """The auth gate a server started with ``settings`` would have."""
    db = Database.open(settings.db_url)
    try:
        yield AuthGate(settings, db)
    finally:
        db.dispose()


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_first_local_run_generates_a_private_secret_and_settings_use_it(local_run: Path) -> None:
    assert Settings().uses_default_secret
    result = prepare_local_run(Settings())
    secret_file = local_run / ".jwt_secret"
    assert result.secret_generated and result.secret_file == secret_file.resolve()
    assert _mode(secret_file) == 0o600
    settings = result.settings
    assert not settings.uses_default_secret
    assert settings.jwt_secret.get_secret_value() == secret_file.read_text().strip()
    assert len(settings.jwt_secret.get_secret_value()) >= 32
    settings.check_secrets()  # the generated secret is not the placeholder


def test_first_local_run_creates_admin_with_password_only_in_a_private_file(
    local_run: Path, capsys
) -> None:
    prepare_local_run(Settings())
    admin_file = local_run / "initial-admin.txt"
    out = capsys.readouterr().out
    assert "First admin: admin — password in data/initial-admin.txt" in out
    assert _mode(admin_file) == 0o600
    password = next(
        line.split(": ", 1)[1]
        for line in admin_file.read_text().splitlines()
        if line.startswith("password: ")
    )
    assert password not in out
    principal = _login("admin", password)
    assert principal is not None and principal.role == "admin"


def test_second_local_run_keeps_the_secret_and_creates_no_admin(local_run: Path, capsys) -> None:
    first = prepare_local_run(Settings())
    with _gate(first.settings) as gate:  # a token for the admin's current credentials
        token, _ = gate.issue(username="admin", role="admin")
    first_secret = (local_run / ".jwt_secret").read_text()
    capsys.readouterr()

    result = prepare_local_run(Settings())  # a new process: only the file on disk carries over
    assert not result.secret_generated and result.admin_file is None
    assert (local_run / ".jwt_secret").read_text() == first_secret
    assert capsys.readouterr().out == ""
    with _gate(result.settings) as gate:
        assert gate.verify(token).user_id == "admin"  # tokens survive a restart


def test_existing_users_mean_no_generated_admin(local_run: Path) -> None:
    db = Database.open(Settings().db_url)
    with db.session() as session:
        users.create_user(session, username="ops", role="admin", password_hash="x")
    db.dispose()
    assert prepare_local_run(Settings()).admin_file is None
    assert not (local_run / "initial-admin.txt").exists()


def test_configured_secret_is_left_alone(local_run: Path, monkeypatch) -> None:
    monkeypatch.setenv("SS_TOOLS_JWT_SECRET", "operator-chosen-" + "s" * 32)
    result = prepare_local_run(Settings())
    assert result.secret_file is None and not result.secret_generated
    assert not (local_run / ".jwt_secret").exists()
    assert result.settings.jwt_secret.get_secret_value().startswith("operator-chosen-")


def test_outside_dev_mode_nothing_is_generated_and_the_placeholder_is_refused(
    local_run: Path, monkeypatch
) -> None:
    monkeypatch.setenv("SS_TOOLS_DEV", "0")
    settings = Settings()
    result = prepare_local_run(settings)
    assert result == type(result)(
        settings=settings, secret_file=None, secret_generated=False, admin_file=None
    )
    assert not (local_run / ".jwt_secret").exists()
    with pytest.raises(ConfigError, match="placeholder"):
        result.settings.check_secrets()


def test_tokens_signed_with_the_placeholder_fail_after_bootstrap(local_run: Path) -> None:
    token, _ = issue_token(Settings(), username="admin", role="admin")  # placeholder-signed
    result = prepare_local_run(Settings())
    with _gate(result.settings) as gate, pytest.raises(AuthError, match="bad signature"):
        gate.verify(token)


@pytest.mark.parametrize(
    ("dev", "secret", "refused"),
    [
        # the placeholder outside dev mode is refused
        (False, DEFAULT_JWT_SECRET, True),
        # the placeholder in dev mode is allowed
        (True, DEFAULT_JWT_SECRET, False),
        # a real secret outside dev mode is fine
        (False, "a-real-secret-" + "r" * 32, False),
    ],
)
def test_default_secret_is_refused_without_dev_mode(dev: bool, secret: str, refused: bool) -> None:
    settings = Settings(dev=dev, jwt_secret=secret)
    if refused:
        with pytest.raises(ConfigError, match="SS_TOOLS_JWT_SECRET"):
            settings.check_secrets()
    else:
        settings.check_secrets()


@pytest.mark.parametrize(
    ("content", "error"),
    [
        # a secret file that is too short is refused at settings load
        ("short", "under 32 characters"),
        # a missing secret file is refused at settings load
        (None, "No such file"),
    ],
)
def test_bad_secret_file_is_refused(tmp_path: Path, content: str | None, error: str) -> None:
    path = tmp_path / "secret"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ValueError, match=error):
        Settings(jwt_secret_file=path)
