"""The suite's real product processes come from a fork server (tests/forkserver.py): each
is still a process of its own, configured by the environment the test gave it."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import httpx

from tests.forkserver_client import Forked
from tests.server_proc import UNREACHABLE_DEV, Server, server_env


def _env(tmp_path: Path, name: str) -> dict[str, str]:
    data = tmp_path / name
    data.mkdir()
    (data / "environments.toml").write_text(UNREACHABLE_DEV)
    return server_env(data)


def test_a_forked_server_is_a_process_of_its_own_with_the_tests_settings(tmp_path: Path) -> None:
    first, second = Server(_env(tmp_path, "a")), Server(_env(tmp_path, "b"))
    with first, second:
        for server in (first, second):
            assert isinstance(server.proc, Forked)
            pid = server.proc.pid
            assert pid != os.getpid() and os.getsid(pid) == pid  # a session of its own
            assert httpx.get(server.url + "/api/health", timeout=10).status_code == 200
            data = Path(server.env["SS_TOOLS_DATA_DIR"])
            assert (data / "ss_tools.db").exists()  # its settings came from its environment
            assert "ready" in server.tail()  # its output went to its own log
        assert first.proc.pid != second.proc.pid

        first.kill()  # a crash ends that process alone
        assert first.proc.wait(timeout=10) == -signal.SIGKILL
        assert httpx.get(second.url + "/api/health", timeout=10).status_code == 200
    assert second.proc.returncode is not None  # stopped with the block


def test_without_the_fork_server_it_is_python_main_py(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SS_TOOLS_TEST_FORKSERVER", "0")
    with Server(_env(tmp_path, "c")) as server:
        assert not isinstance(server.proc, Forked)
        assert httpx.get(server.url + "/api/health", timeout=10).status_code == 200
