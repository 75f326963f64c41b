"""``python main.py users ...``: manage the local users.

    users add NAME --role admin|analyst (--password PW | --password-stdin)
    users list
    users passwd NAME (--password PW | --password-stdin)
    users disable NAME / users enable NAME
    users role NAME --role admin|analyst
    users delete NAME
    users set-superset-username NAME SUPERSET_USER | --clear

Disabling, deleting or re-roling a user ends their page sessions at once; their bearer
tokens are refused within ``SS_TOOLS_REVOCATION_CACHE_S`` seconds (default 5).

Exit codes: 0 done, 1 refused (duplicate user, unknown user, database error),
2 bad arguments (unknown role, weak password, malformed name). Passwords are hashed
with scrypt before they reach the database and are never printed.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from datetime import datetime

from app.auth.passwords import hash_password
from app.cli_run import CliError, run_command
from app.settings import Settings
from app.store import page_sessions
from app.store import users as user_store
from app.store.db import Database
from app.vocab import ROLES

USERNAME_RE = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")
MIN_PASSWORD_CHARS = 8


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="main.py users", description="Manage local users.")
    sub = parser.add_subparsers(dest="command", required=True)

    add = sub.add_parser("add", help="create a user")
    add.add_argument("name")
    add.add_argument("--role", required=True, help="admin or analyst")
    _password_args(add)

    sub.add_parser("list", help="list users")

    passwd = sub.add_parser("passwd", help="set a user's password")
    passwd.add_argument("name")
    _password_args(passwd)

    for name, text in (
        ("disable", "refuse the user's logins and end their sessions"),
        ("enable", "allow again"),
        ("delete", "remove the user and end their sessions"),
    ):
        sub.add_parser(name, help=text).add_argument("name")
    mapped = sub.add_parser(
        "set-superset-username",
        help="the Superset account NAME acts as on identity = 'assertion' environments",
    )
    mapped.add_argument("name")
    mapped.add_argument("superset_user", nargs="?")
    mapped.add_argument("--clear", action="store_true", help="remove the mapping")
    role = sub.add_parser("role", help="change a user's role (ends their sessions)")
    role.add_argument("name")
    role.add_argument("--role", required=True, help="admin or analyst")
    return parser


def _password_args(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--password", help="the new password (visible in shell history)")
    group.add_argument(
        "--password-stdin", action="store_true", help="read the password from standard input"
    )


def _password(args: argparse.Namespace) -> str:
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = args.password
    if len(password) < MIN_PASSWORD_CHARS:
        raise CliError(f"password too short: use at least {MIN_PASSWORD_CHARS} characters", 2)
    return password


def _username(name: str) -> str:
    if not USERNAME_RE.match(name):
        raise CliError(
            f"invalid user name {name!r}: 1-64 characters of letters, digits, _ . @ -", 2
        )
    return name


def _role(role: str) -> str:
    if role not in ROLES:
        raise CliError(f"unknown role {role!r}: choose one of {', '.join(ROLES)}", 2)
    return role


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") if value else "-"


def _add(db: Database, args: argparse.Namespace) -> str:
    name, role, password = _username(args.name), _role(args.role), _password(args)
    with db.session() as session:
        if user_store.get_user_by_name(session, username=name) is not None:
            raise CliError(f"user {name!r} already exists (use 'users passwd' to change it)")
        user_store.create_user(
            session,
            username=name,
            role=role,
            password_hash=hash_password(password, n=args.scrypt_n),
        )
    return f"created user {name!r} with role {role}"


def _list(db: Database, _: argparse.Namespace) -> str:
    with db.session() as session:
        rows = [
            (u.username, u.role, _when(u.created_at), "yes" if u.disabled else "no")
            for u in user_store.list_users(session)
        ]
    if not rows:
        return "(no users)"
    header = ("USERNAME", "ROLE", "CREATED (UTC)", "DISABLED")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
        for r in [header, *rows]
    ]
    return "\n".join(lines)


def _passwd(db: Database, args: argparse.Namespace) -> str:
    name, password = _username(args.name), _password(args)
    with db.session() as session:
        if user_store.get_user_by_name(session, username=name) is None:
            raise CliError(f"no user {name!r}")
        user_store.set_password(
            session, username=name, password_hash=hash_password(password, n=args.scrypt_n)
        )
        page_sessions.end_user_sessions(session, username=name)  # its tokens: a new stamp
    return f"password changed for {name!r}"


def _set_disabled(db: Database, args: argparse.Namespace) -> str:
    name, disabled = _username(args.name), args.command == "disable"
    with db.session() as session:
        user_store.set_disabled(session, username=name, disabled=disabled)
        if disabled:
            page_sessions.end_user_sessions(session, username=name)
    return f"user {name!r} {'disabled' if disabled else 'enabled'}"


def _set_role(db: Database, args: argparse.Namespace) -> str:
    name, role = _username(args.name), _role(args.role)
    with db.session() as session:
        user_store.set_role(session, username=name, role=role)
        page_sessions.end_user_sessions(session, username=name)
    return f"user {name!r} now has role {role}"


def _delete(db: Database, args: argparse.Namespace) -> str:
    name = _username(args.name)
    with db.session() as session:
        user_store.delete_user(session, username=name)
        page_sessions.end_user_sessions(session, username=name)
    return f"user {name!r} deleted"


def _set_superset_username(db: Database, args: argparse.Namespace) -> str:
    name = _username(args.name)
    if args.clear == bool(args.superset_user):
        raise CliError("give a Superset username or --clear (not both)", 2)
    mapped = None if args.clear else _username(args.superset_user)
    with db.session() as session:
        user_store.set_superset_username(session, username=name, superset_username=mapped)
    if mapped is None:
        return f"user {name!r} acts as no Superset account on assertion environments"
    return f"user {name!r} acts as Superset user {mapped!r} on assertion environments"


COMMANDS: dict[str, Callable[[Database, argparse.Namespace], str]] = {
    "add": _add,
    "list": _list,
    "passwd": _passwd,
    "disable": _set_disabled,
    "enable": _set_disabled,
    "role": _set_role,
    "delete": _delete,
    "set-superset-username": _set_superset_username,
}


def users_main(argv: Sequence[str] | None = None, *, settings: Settings | None = None) -> int:
    """Run one ``users`` command on the database of ``settings`` (default: read from the
    environment, as every entry point does); returns the process exit code."""
    return run_command(_parser(), argv, settings, _users_command)


def _users_command(settings: Settings, db: Database, args: argparse.Namespace) -> str:
    args.scrypt_n = settings.scrypt_n  # the cost of the hashes written (add, passwd)
    return COMMANDS[args.command](db, args)
