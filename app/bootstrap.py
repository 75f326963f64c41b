"""Local-run bootstrap, called by ``python main.py start`` before the app is built.

In dev mode (``SS_TOOLS_DEV=1``, which ``python dev.py start`` sets):

1. JWT secret: when none is configured (still the built-in placeholder and no
   ``SS_TOOLS_JWT_SECRET_FILE``), a random one is generated once into
   ``<data_dir>/.jwt_secret`` (mode 600) and kept across restarts. The settings handed
   back (``LocalRun.settings``, the ones main.py builds the app from) name that file.
2. First admin: when the users table is empty, ``admin`` is created with a random
   password written to ``<data_dir>/initial-admin.txt`` (mode 600). Only the file's path
   is printed, never the password.
3. Four-eyes, so a newcomer sees it: unless a policy file is configured, the sandbox's
   ``<data_dir>/policy.toml`` turns it on for dangerous calls on prod
   (``[approval] second_person = ["dangerous@prod"]``), and a second admin, ``approver``,
   is created (its random password in ``<data_dir>/second-admin.txt``) to approve what
   ``admin`` asks for (docs/approvals.md).

Outside dev mode nothing is generated: a real secret must be configured, and
``Settings.check_secrets()`` (called by ``create_app``) refuses the placeholder.

The local Superset sandbox is dev tooling, apart from the product: main.py asks
``app.sandbox.service.local_superset`` for it.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.auth import hash_password
from app.settings import Settings
from app.store import users
from app.store.db import Database

if TYPE_CHECKING:
    from sqlmodel import Session

SECRET_FILE_NAME = ".jwt_secret"
ADMIN_FILE_NAME = "initial-admin.txt"
ADMIN_USERNAME = "admin"
APPROVER_USERNAME = "approver"
APPROVER_FILE_NAME = "second-admin.txt"
POLICY_FILE_NAME = "policy.toml"
DEV_POLICY = """# written by `python main.py start` in dev mode (the sandbox): four-eyes is on.
# A dangerous call on prod (a delete) waits for a second admin's approval after its
# requester confirms it. Your own policy: set SS_TOOLS_POLICY_FILE (docs/approvals.md).
[approval]
second_person = ["dangerous@prod"]
approver_roles = ["admin"]
"""


@dataclass(frozen=True)
class LocalRun:
    """What :func:`prepare_local_run` did (for callers and tests); ``settings`` are the
    ones to build the app from."""

    settings: Settings
    secret_file: Path | None
    secret_generated: bool
    admin_file: Path | None
    approver_file: Path | None = None


def _write_private(path: Path, text: str, *, exclusive: bool) -> None:
    """Write ``text`` to ``path`` readable by the owner only (mode 600)."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else os.O_TRUNC)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(path, 0o600)  # also tightens a pre-existing file opened with O_TRUNC


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path.resolve())


def ensure_jwt_secret(settings: Settings) -> tuple[Settings, Path | None, bool]:
    """Settings that use a generated secret file when no secret is configured (dev only).

    Returns (the settings to use, the secret file in use or None, whether it was
    generated now).
    """
    if not settings.dev or not settings.uses_default_secret or settings.jwt_secret_file:
        return settings, settings.jwt_secret_file, False
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    path = (settings.data_dir / SECRET_FILE_NAME).resolve()
    generated = not path.exists()
    if generated:
        _write_private(path, secrets.token_urlsafe(48) + "\n", exclusive=True)
    else:
        os.chmod(path, 0o600)
    # read again with the file named: its secret replaces the placeholder (a validator)
    with_file = Settings(**settings.model_dump(exclude_unset=True), jwt_secret_file=path)
    return with_file, path, generated


def ensure_first_admin(settings: Settings) -> Path | None:
    """Create ``admin`` with a random password when there are no users (dev only).

    Returns the file holding the password, or None when nothing was created.
    """
    if not settings.dev:
        return None
    db = Database.open(settings.db_url)
    try:
        return _first_admin(settings, db)
    finally:
        db.dispose()


def _first_admin(settings: Settings, db: Database) -> Path | None:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    path = settings.data_dir / ADMIN_FILE_NAME
    with db.session() as session:
        if users.list_users(session):
            return None
        change = f"# change it: python main.py users passwd {ADMIN_USERNAME} --password-stdin"
        _new_admin(session, settings, ADMIN_USERNAME, path, change)
    print(f"First admin: {ADMIN_USERNAME} — password in {_display(path)}", flush=True)
    return path


def _new_admin(session: Session, settings: Settings, username: str, path: Path, note: str) -> None:
    """``username``, an admin with a random password, added to ``session``; the password
    goes to ``path`` (with ``note``) before the caller commits: if the file cannot be
    written, no admin is created."""
    password = secrets.token_urlsafe(18)
    password_hash = hash_password(password, n=settings.scrypt_n)
    users.create_user(session, username=username, role="admin", password_hash=password_hash)
    text = f"username: {username}\npassword: {password}\n{note}\n"
    _write_private(path, text, exclusive=False)


def ensure_dev_policy(settings: Settings) -> Settings:
    """Settings whose policy file turns four-eyes on (dev only, when none is configured):
    ``<data_dir>/policy.toml``, written once (an edited one is kept)."""
    if not settings.dev or settings.policy_file is not None:
        return settings
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    path = (settings.data_dir / POLICY_FILE_NAME).resolve()
    if not path.exists():
        path.write_text(DEV_POLICY, encoding="utf-8")
        print(f"Four-eyes is on (dangerous calls on prod): {_display(path)}", flush=True)
    return Settings(**settings.model_dump(exclude_unset=True), policy_file=path)


def ensure_second_admin(settings: Settings) -> Path | None:
    """Create the admin ``approver`` with a random password when it does not exist (dev
    only): the second person who approves what ``admin`` asks for. Returns the file
    holding its password, or None when nothing was created."""
    if not settings.dev:
        return None
    db = Database.open(settings.db_url)
    try:
        with db.session() as session:
            if users.get_user_by_name(session, username=APPROVER_USERNAME) is not None:
                return None
            path = settings.data_dir / APPROVER_FILE_NAME
            note = "# a second admin: approves what another admin asks for on prod (four-eyes)"
            _new_admin(session, settings, APPROVER_USERNAME, path, note)
    finally:
        db.dispose()
    print(f"Second admin: {APPROVER_USERNAME} — password in {_display(path)}", flush=True)
    return path


def prepare_local_run(settings: Settings) -> LocalRun:
    """Everything a local ``python main.py start`` needs before ``create_app()``; its
    ``settings`` are the ones to build the app from."""
    settings, secret_file, generated = ensure_jwt_secret(settings)
    admin_file = ensure_first_admin(settings)
    settings = ensure_dev_policy(settings)
    approver_file = ensure_second_admin(settings)
    return LocalRun(
        settings=settings,
        secret_file=secret_file,
        secret_generated=generated,
        admin_file=admin_file,
        approver_file=approver_file,
    )
