"""The model a bench script asks: a running llama-server named by its URL, or the local
model started for the run and stopped after it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from app.sandbox.local_model import start_local_model, unavailable_reason


@contextmanager
def model_url(base_url: str | None) -> Iterator[str]:
    """``base_url`` as it is, or the local model's, started here and stopped on leaving
    (a machine that cannot build it ends the script with the reason)."""
    if base_url is not None:
        yield base_url
        return
    reason = unavailable_reason()
    if reason:
        raise SystemExit(f"[llm] the local model cannot run here: {reason}")
    server = start_local_model(progress=lambda m: print(m, file=sys.stderr))
    try:
        yield server.base_url
    finally:
        server.stop()
