"""ss-tools agent entry point.

    python main.py [start]                                  run the server (NiceGUI + API)
    python main.py start --local-model                      ... answered by a local small LLM
    python main.py users add NAME --role admin|analyst --password PW
    python main.py users list
    python main.py users set-superset-username NAME SUPERSET_USER
    python main.py superset link|unlink|list|public-key|rotate-keys ...

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
import threading
import time
from collections.abc import Callable
from typing import Any

from app.settings import Settings

# The server's modules (NiceGUI, the agent, every tool) are imported where they are used,
# so ``python main.py users ...`` answers without loading them.

TITLE = "ss-tools agent"
#: The local model is slow on a CPU (a turn with every tool offered: up to minutes).
LOCAL_MODEL_TIMEOUT_S = 300.0
#: Characters a token of the local model's prompts holds at the least (Qwen's tokenizer:
#: about 3-4 in English, 2.5 in Russian and JSON): its input budget is its context less
#: the answer's tokens, in these characters.
LOCAL_MODEL_CHARS_PER_TOKEN = 2.5
#: the turns whose prompt prefix the local model keeps, one server slot each: (role, the
#: page's object type). The first start on a machine computes them (about a minute each
#: on two cores, in the background); later starts read them back in milliseconds.
LOCAL_MODEL_PREFIXES = (("admin", None), ("analyst", None), ("admin", "dashboard"))


def serve(settings: Settings, *, title: str = TITLE, **options: Any) -> None:
    """``ui.run`` as the product serves: the settings' host, port and page storage
    secret, no reload, no browser window (``options``: more of ``ui.run``'s)."""
    from nicegui import ui

    ui.run(
        host=settings.host,
        port=settings.port,
        uvicorn_logging_level=settings.log_level,
        title=title,
        storage_secret=settings.nicegui_storage_secret(),
        reload=False,
        show=False,
        **options,
    )


def with_local_model(settings: Settings) -> Settings:
    """``start --local-model``: build (once per machine) and start llama-server with a small
    model on loopback, stopped when the product stops; the settings point the
    OpenAI-compatible provider at it (a timeout set in the environment is kept)."""
    from nicegui import app

    from app.sandbox.local_model import (  # dev tooling, like the sandbox
        SandboxError,
        start_local_model,
    )

    try:
        server = start_local_model(
            progress=functools.partial(print, flush=True), slots=len(LOCAL_MODEL_PREFIXES)
        )
    except SandboxError as exc:  # asked for by name: no silent fallback to the offline planner
        sys.exit(f"[llm] the local model could not be started: {exc}")
    app.on_shutdown(server.stop)
    atexit.register(server.stop)
    threading.Thread(target=keep_prefixes, args=(server,), name="llm-prefixes", daemon=True).start()
    overrides: dict[str, Any] = {
        "llm_provider": "openai",
        "llm_base_url": server.base_url,
        "llm_model": server.model_name,
        "llm_api_key": "none",
    }
    if "llm_timeout_s" not in settings.model_fields_set:
        overrides["llm_timeout_s"] = LOCAL_MODEL_TIMEOUT_S
    if "model_input_max_chars" not in settings.model_fields_set:
        room = (server.context - settings.llm_max_tokens) * LOCAL_MODEL_CHARS_PER_TOKEN
        overrides["model_input_max_chars"] = int(room)
    print(f"[llm] the agent's model: {server.model_name} at {server.base_url}", flush=True)
    return Settings(**{**settings.model_dump(exclude_unset=True), **overrides})


def prefix_requests(model_name: str) -> list[dict[str, Any]]:
    """One chat request per :data:`LOCAL_MODEL_PREFIXES` entry, as the product starts
    such a turn (``app.agent.prompt.prefix_request``)."""
    from app.agent.prompt import prefix_request
    from app.agent.rules import default_policy

    policy = default_policy()
    return [prefix_request(policy, role, page, model_name) for role, page in LOCAL_MODEL_PREFIXES]


def keep_prefixes(server: Any, say: Callable[[str], object] = print) -> None:
    """Have the local model keep the prompt prefixes of :data:`LOCAL_MODEL_PREFIXES` (see
    ``LocalModelServer.keep_prefixes``), and say how it went: a failure only means the
    first turn of that kind computes its prefix itself."""
    started = time.monotonic()
    try:
        done = server.keep_prefixes(prefix_requests(server.model_name))
    except Exception as exc:  # said, and the turns go on without it
        say(f"[llm] the prompt prefixes were not kept ({exc}); each first turn computes its own")
        return
    say(f"[llm] prompt prefixes {', '.join(done)} in {time.monotonic() - started:.1f} s")


def main() -> None:
    from app.logtext import escape_log_records

    escape_log_records()  # every log line shows control characters, never obeys them
    command = sys.argv[1] if __name__ == "__main__" and len(sys.argv) > 1 else ""
    if command in {"-h", "--help", "help"}:
        print(__doc__.split("Order:")[0].strip())
        sys.exit(0)
    if command == "users":  # a command line of its own: the server's modules are not loaded
        from app.cli import users_main

        os.umask(0o077)  # the database file it may create is the product's own: 0600
        sys.exit(users_main(sys.argv[2:], settings=Settings()))
    if command == "superset":  # people's Superset accounts: no server modules either
        from app.cli_superset import superset_main

        os.umask(0o077)
        sys.exit(superset_main(sys.argv[2:], settings=Settings()))
    from nicegui import app, helpers

    from app.bootstrap import prepare_local_run
    from app.reasoning import configure_cot_logging
    from app.sandbox.service import local_superset
    from app.tasks.sweep import TaskSweeper
    from app.web import create_app

    if not helpers.is_pytest():
        os.umask(0o077)  # files the product writes (data dir, page storage) are its own: 0600
    settings = Settings()
    if command == "start":
        settings = prepare_local_run(settings).settings
        sandbox = local_superset(settings, functools.partial(print, flush=True))  # dev tooling
        if sandbox is not None:  # stop what this run started: at shutdown, at exit as a fallback
            app.on_shutdown(functools.partial(sandbox.stop, print))
            atexit.register(sandbox.stop)
        if "--local-model" in sys.argv[2:]:
            settings = with_local_model(settings)
    parts = create_app(settings=settings)
    # at shutdown a running turn ends (or is cancelled), then the checkpointer closes
    app.on_shutdown(parts.core.aclose)
    if settings.is_postgres:  # several replicas: any live one marks a dead one's tasks
        sweeper = TaskSweeper(
            parts.db, every_s=settings.task_sweep_s, stale_after_s=settings.task_stale_s
        )
        app.on_startup(sweeper.start)
        app.on_shutdown(sweeper.stop)
    if not helpers.is_pytest():  # tests read CoT records through caplog instead
        configure_cot_logging()
    serve(settings, favicon="🛠")


if __name__ in {"__main__", "__mp_main__"}:
    main()
