"""A child for ``app.workers`` tests: ``python -m tests.workers_child``. A job is a word:
``pid`` (its process id), ``spin`` (never ends), ``exit`` (the process ends), else the
job in capitals."""

from __future__ import annotations

import os

from app.workers import serve


def handle(job: bytes) -> bytes:
    if job == b"pid":
        return str(os.getpid()).encode()
    if job == b"spin":
        while True:
            pass
    if job == b"exit":
        os._exit(3)
    return job.upper()


if __name__ == "__main__":
    serve(handle, lambda hello: None)
