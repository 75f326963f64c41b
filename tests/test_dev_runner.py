"""``python dev.py test``: how a run is split (dev.py is the README's test command)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _dev() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dev_under_test", ROOT / "dev.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def dev(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    module = _dev()
    monkeypatch.setattr(module.os, "cpu_count", lambda: 2)
    return module


def test_the_suite_is_the_real_parts_beside_the_rest_on_two_workers(dev: ModuleType) -> None:
    real, rest = dev._shards([])
    assert real == ["-m", "superset or llm"]
    assert rest == ["-n", "2", "-m", "not (superset or llm)"]
    assert dev._shards(["tests/ui", "-q"])[0] == ["-m", "superset or llm", "tests/ui", "-q"]


def test_a_marker_run_is_one_shard_on_two_workers(dev: ModuleType) -> None:
    assert dev._shards(["-m", "not superset"]) == [["-n", "2", "-m", "not superset"]]


@pytest.mark.parametrize(
    "args",
    [
        ["tests/test_context.py"],
        ["tests/ui/test_look.py::test_x"],
        ["--pdb"],
        ["-n", "0"],
        ["-p", "no:xdist"],
        ["--co"],
    ],
)
def test_files_nodes_a_debugger_or_own_workers_run_in_one_process(
    dev: ModuleType, args: list[str]
) -> None:
    assert dev._shards(args) is None


def test_one_core_runs_in_one_process(dev: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dev.os, "cpu_count", lambda: 1)
    assert dev._shards([]) is None


@pytest.mark.parametrize(
    ("codes", "expected"),
    [([0, 0], 0), ([5, 0], 0), ([0, 5], 0), ([5, 5], 5), ([0, 1], 1), ([2, 1], 2), ([5, 3], 3)],
)
def test_the_exit_code_is_a_failure_of_any_shard(
    dev: ModuleType, codes: list[int], expected: int
) -> None:
    assert dev.combined_exit(codes) == expected


def test_dev_py_needs_only_the_standard_library() -> None:
    before = set(sys.modules)
    _dev()
    third_party = {m.split(".")[0] for m in set(sys.modules) - before} - set(
        sys.stdlib_module_names
    )
    assert third_party <= {"dev_under_test"}, third_party
