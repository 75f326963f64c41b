"""What the command lines (``main.py users``, ``main.py superset``) share: a refusal with
its exit code (:class:`CliError`), and one command run from start to end
(:func:`run_command`): its arguments parsed, the database opened, its answer printed,
every error one line on stderr with an exit code (never a traceback), the database closed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from sqlalchemy.exc import SQLAlchemyError

from app.errors import SsToolsError
from app.settings import Settings
from app.store.db import Database

#: one command: the settings, the open database and the parsed arguments -> what to print
Command = Callable[[Settings, Database, argparse.Namespace], str]


class CliError(Exception):
    """A command refused: the message, and the process's exit code."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def run_command(
    parser: argparse.ArgumentParser,
    argv: Sequence[str] | None,
    settings: Settings | None,
    command: Command,
) -> int:
    """Parse ``argv`` (default: the process's, after ``main.py <group>``), then run
    ``command`` on the database of ``settings`` (default: read from the environment, as
    every entry point does) and print its answer; returns the process exit code."""
    try:
        args = parser.parse_args(list(sys.argv[2:] if argv is None else argv))
    except SystemExit as exc:  # argparse already printed usage and the reason
        return exc.code if isinstance(exc.code, int) else 2
    db: Database | None = None
    try:
        settings = settings if settings is not None else Settings()
        db = Database.open(settings.db_url)
        print(command(settings, db, args))
    except CliError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.code
    except SsToolsError as exc:  # the store's and the configuration's own errors
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except SQLAlchemyError as exc:
        orig = getattr(exc, "orig", None) or exc
        first_line = (str(orig).strip().splitlines() or [""])[0][:300]
        print(f"error: database: {type(orig).__name__}: {first_line}", file=sys.stderr)
        return 1
    finally:
        if db is not None:
            db.dispose()
    return 0
