"""ss-tools agent entry point.

    python main.py [start]                                  run the server (NiceGUI + API)
    python main.py users add NAME --role admin|analyst --password PW
    python main.py users list

Order: settings -> database -> app factory -> ui.run.
"""

import os
import sys

from nicegui import helpers, ui

from app.settings import get_settings
from app.web import create_app

if __name__ in {"__main__", "__mp_main__"} and not helpers.is_pytest():
    os.umask(0o077)  # files the product writes (data dir, page storage) are its own: 0600

if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "users":
    from app.cli import users_main

    sys.exit(users_main(sys.argv[2:]))

if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "start":
    from app.bootstrap import prepare_local_run

    prepare_local_run()

core = create_app()

if __name__ in {"__main__", "__mp_main__"}:
    if not helpers.is_pytest():  # tests read CoT records through caplog instead
        from nicegui import app

        from app.store.cot import configure_cot_logging

        configure_cot_logging()
        app.on_shutdown(core.aclose)  # the checkpointer of the server's event loop
    _s = get_settings()
    ui.run(
        host=_s.host,
        port=_s.port,
        title="ss-tools agent",
        storage_secret=_s.nicegui_storage_secret(),
        reload=False,
        show=False,
        favicon="🛠",
    )
