"""ss-tools agent entry point.

    python main.py [start]                                  run the server (NiceGUI + API)
    python main.py users add NAME --role admin|analyst --password PW
    python main.py users list

Order: settings -> (start: the local secret, the first admin, the Superset sandbox) ->
app factory -> ui.run. The settings are read here, once (``Settings()``); ``create_app``
builds the parts from them (``app.parts``). The sandbox is dev tooling: this entry is the
only one that starts it, and nothing on the request path imports it. Importing this
module runs nothing: a test entry takes :func:`serve` from here.
"""

import atexit
import functools
import os
import sys
from typing import Any

from nicegui import app, helpers, ui

from app.bootstrap import prepare_local_run
from app.cli import users_main
from app.reasoning import configure_cot_logging
from app.sandbox.service import local_superset
from app.settings import Settings
from app.web import create_app

TITLE = "ss-tools agent"


def serve(settings: Settings, *, title: str = TITLE, **options: Any) -> None:
    """``ui.run`` as the product serves: the settings' host, port and page storage
    secret, no reload, no browser window (``options``: more of ``ui.run``'s)."""
    ui.run(
        host=settings.host,
        port=settings.port,
        title=title,
        storage_secret=settings.nicegui_storage_secret(),
        reload=False,
        show=False,
        **options,
    )


def main() -> None:
    command = sys.argv[1] if __name__ == "__main__" and len(sys.argv) > 1 else ""
    if command in {"-h", "--help", "help"}:
        print(__doc__.split("Order:")[0].strip())
        sys.exit(0)
    if not helpers.is_pytest():
        os.umask(0o077)  # files the product writes (data dir, page storage) are its own: 0600
    settings = Settings()
    if command == "users":
        sys.exit(users_main(sys.argv[2:], settings=settings))
    if command == "start":
        settings = prepare_local_run(settings).settings
        sandbox = local_superset(settings, functools.partial(print, flush=True))  # dev tooling
        if sandbox is not None:  # stop what this run started: at shutdown, at exit as a fallback
            app.on_shutdown(functools.partial(sandbox.stop, print))
            atexit.register(sandbox.stop)
    parts = create_app(settings=settings)
    # at shutdown a running turn ends (or is cancelled), then the checkpointer closes
    app.on_shutdown(parts.core.aclose)
    if not helpers.is_pytest():  # tests read CoT records through caplog instead
        configure_cot_logging()
    serve(settings, favicon="🛠")


if __name__ in {"__main__", "__mp_main__"}:
    main()
