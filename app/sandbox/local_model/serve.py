"""A running ``llama-server`` (:class:`LocalModelServer`), and :func:`start_local_model`:
the binary and the weights ensured (built or downloaded on first use), then the server
started on a free loopback port."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.sandbox.common import Progress, SandboxError, Stoppable, tail
from app.sandbox.local_model.binary import ensure_llama_server
from app.sandbox.local_model.cache import (
    CONTEXT_TOKENS,
    HEALTH_TIMEOUT_S,
    LLAMA_CPP_VERSION,
    MODEL_NAME,
    MODEL_SHA256,
    PREFIX_KEEP_DAYS,
    PREFIX_TIMEOUT_S,
    TEMPLATE_FILE,
    LlmPaths,
    cpus,
    step,
)
from app.sandbox.local_model.weights import ensure_model
from app.sandbox.processes import end_process, free_port


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


class _Refused(SandboxError):
    """llama-server answered a request with an HTTP error (it is up)."""


@dataclass(kw_only=True, eq=False)
class LocalModelServer(Stoppable):
    """A running ``llama-server`` on 127.0.0.1 (OpenAI-compatible API at
    :attr:`base_url`, model id :attr:`model_name`); :meth:`stop` ends it. A context
    manager: leaving the block stops it."""

    binary: Path
    model: Path
    port: int
    log_file: Path
    threads: int
    template: Path = TEMPLATE_FILE
    context: int = CONTEXT_TOKENS  # per slot
    slots: int = 1
    prefix_dir: Path | None = None
    model_name: str = field(default=MODEL_NAME, init=False)
    _proc: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)

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
        with step(progress, f"starting llama-server on {self.root_url}"):
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

    def stop(self, progress: Progress | None = None) -> None:
        """End the server (SIGTERM, then SIGKILL after 10 s); safe to call twice."""
        proc, self._proc = self._proc, None
        if proc is not None:
            end_process(proc, timeout=10, kill_timeout=10)


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
        threads=threads or cpus(),
        slots=slots,
        prefix_dir=paths.prefix_dir,
    )
    server.start(progress)
    return server
