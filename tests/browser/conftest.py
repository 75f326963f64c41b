"""Shared pieces of the browser tests: where screenshots go, and the product as a
subprocess (``python main.py``) against the real Superset sandbox, with an admin ``ops``
who signs in with ``PASSWORD`` (``server``: with a dangerous card's countdown of 3 s; a
test that needs other settings makes its own with :func:`product`). What a person does on
the pages is ``tests.browser.steps``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.server_proc import Server, add_user, server_env

SHOTS = Path(__file__).resolve().parents[1] / "screenshots"
PASSWORD = "browser-pw-123"


@contextmanager
def product(
    data_dir: Path,
    sandbox: Any,
    *,
    add_environments: Callable[[Path], None] | None = None,
    **settings: str,
) -> Iterator[Server]:
    """The product served from ``data_dir`` with the sandbox's environments (and what
    ``add_environments`` appends to that file) and ``settings``; stopped on the way out.
    Screenshots' folder is made too."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    env = server_env(data_dir, **settings)
    envs_file = Path(env["SS_TOOLS_ENVIRONMENTS_FILE"])
    sandbox.write_environments_file(envs_file)
    if add_environments is not None:
        add_environments(envs_file)
    add_user(env, "ops", "admin", PASSWORD)
    srv = Server(env).start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def server(tmp_path: Path, superset_sandbox: Any) -> Iterator[Server]:
    with product(tmp_path, superset_sandbox, SS_TOOLS_DANGEROUS_COUNTDOWN_S="3") as srv:
        yield srv
