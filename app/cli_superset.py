"""``python main.py superset ...``: people's Superset accounts, for operators.

    superset link ENV USER --superset-user NAME (--password-stdin | --password PW)
    superset unlink ENV USER
    superset list [--user USER]
    superset public-key [--jwks]     the key assertions are signed with (PEM, or a JWKS)
    superset rotate-keys             seal every link again with the newest secret key

``link`` signs USER (an ss-tools user) in to Superset environment ENV once as NAME, as
``POST /api/superset/accounts`` does; the password is read, used for that sign-in and
dropped (prefer ``--password-stdin``: an argument stays in shell history). Nothing prints
a token or a password.

Exit codes: 0 done, 1 refused (Superset said no, unknown link, no key), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence

from app.cli_run import CliError, run_command
from app.errors import NoEnvironmentError
from app.settings import Settings
from app.store import superset_links as store
from app.store.db import Database
from app.superset.accounts import Accounts, LinkRefused
from app.superset.assertions import load_signer
from app.superset.people import serve_people
from app.superset.registry import EnvironmentRegistry, load_environments


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="main.py superset", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    link = sub.add_parser("link", help="link a user's Superset account on an environment")
    link.add_argument("env")
    link.add_argument("user")
    link.add_argument("--superset-user", required=True, help="the Superset username")
    group = link.add_mutually_exclusive_group(required=True)
    group.add_argument("--password", help="the Superset password (visible in shell history)")
    group.add_argument("--password-stdin", action="store_true", help="read it from stdin")
    unlink = sub.add_parser("unlink", help="forget a user's link on an environment")
    unlink.add_argument("env")
    unlink.add_argument("user")
    listing = sub.add_parser("list", help="list links (no secrets)")
    listing.add_argument("--user")
    key = sub.add_parser("public-key", help="print the assertion signing key's public half")
    key.add_argument("--jwks", action="store_true", help="as a JSON Web Key Set")
    sub.add_parser("rotate-keys", help="seal every link with the newest secret key")
    return parser


def _accounts(registry: EnvironmentRegistry) -> Accounts:
    assert registry.accounts is not None
    return registry.accounts


async def _link(registry: EnvironmentRegistry, args: argparse.Namespace) -> str:
    password = sys.stdin.readline().rstrip("\r\n") if args.password_stdin else args.password
    if not password:
        raise CliError("the password is empty", 2)
    try:
        env = registry.get(args.env)
        view, _, _ = await _accounts(registry).link(env, args.user, args.superset_user, password)
    except NoEnvironmentError as exc:
        raise CliError(str(exc)) from None
    except LinkRefused as refused:
        await _accounts(registry).refused_link(
            args.env, args.user, args.superset_user, refused.reason, "cli"
        )
        raise CliError(refused.reason) from None
    expires = view.expires_at.strftime("%Y-%m-%d %H:%M UTC") if view.expires_at else "-"
    who = f"{args.user!r} to Superset account {view.username!r}"
    return f"linked {who} on {view.env_id} until {expires}"


async def _unlink(registry: EnvironmentRegistry, args: argparse.Namespace) -> str:
    if not await _accounts(registry).unlink(args.env, args.user):
        raise CliError(f"no link of {args.user!r} on {args.env}")
    return f"unlinked {args.user!r} on {args.env}"


async def _list(registry: EnvironmentRegistry, args: argparse.Namespace) -> str:
    def when(value: object) -> str:
        return value.strftime("%Y-%m-%d %H:%M") if hasattr(value, "strftime") else "-"

    db = _accounts(registry).db
    with db.session() as session:
        rows = [
            (r.user_id, r.env_id, r.superset_username, when(r.linked_at), when(r.expires_at),
             "active" if r.active else f"expired: {r.expired_reason or '-'}")
            for r in store.list_links(session, user_id=args.user)
        ]  # fmt: skip
    if not rows:
        return "(no links)"
    header = ("USER", "ENV", "SUPERSET USER", "LINKED (UTC)", "EXPIRES (UTC)", "STATE")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
        for r in [header, *rows]
    )


async def _public_key(registry: EnvironmentRegistry, args: argparse.Namespace) -> str:
    signer = _accounts(registry).signer
    if signer is None:
        raise CliError("no assertion key: set SS_TOOLS_SUPERSET_ASSERTION_KEY_FILE")
    return json.dumps(signer.jwks(), indent=2) if args.jwks else signer.public_pem().rstrip()


async def _rotate(registry: EnvironmentRegistry, args: argparse.Namespace) -> str:
    accounts = _accounts(registry)
    if accounts.sealer is None:
        raise CliError("no secret key configured (SS_TOOLS_SECRET_KEY)")
    done = 0
    with accounts.db.session() as session:
        for row in store.list_links(session):
            if row.sealed_token is None:
                continue
            token = accounts.sealer.rotate(row.sealed_token)
            done += store.reseal(
                session, user_id=row.user_id, env_id=row.env_id, generation=row.generation,
                token=token,
            )  # fmt: skip
    return f"sealed {done} link(s) with the newest key"


COMMANDS = {
    "link": _link,
    "unlink": _unlink,
    "list": _list,
    "public-key": _public_key,
    "rotate-keys": _rotate,
}


def superset_main(argv: Sequence[str] | None = None, *, settings: Settings | None = None) -> int:
    """Run one ``superset`` command; returns the process exit code."""
    return run_command(_parser(), argv, settings, _superset_command)


def _superset_command(settings: Settings, db: Database, args: argparse.Namespace) -> str:
    registry = load_environments(settings.environments_file)
    accounts = serve_people(registry, settings, db)
    if args.command == "public-key" and accounts.signer is None:
        accounts.signer = load_signer(settings)  # the configured key, or dev's own
    return asyncio.run(COMMANDS[args.command](registry, args))
