"""The contract's "CoT logger" (the reasoning log): a structured log of why the product
did what it did. A logger, not a store: a leaf any part may use (it knows only the
redaction rule, ``app.text.redact``).

Three phases, each a logging level between INFO (20) and WARNING (30):

* ``REASON`` (21): a decision and its grounds ("tool excluded: admin only"),
* ``EXPLORE`` (22): trying something or meeting the unexpected (a retry, a timeout, a denial),
* ``REFLECT`` (23): the outcome looked back on ("succeeded after 1 retry").

Each record's message is one JSON line ``{"ts", "phase", "msg", ...fields}`` with secret
fields redacted the same way as audit arguments. The record also carries the payload as
``record.cot`` (a dict) for tests and handlers. Logger name: ``ss_tools.cot``.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import IO, Any

from app.text import redact

LOGGER_NAME = "ss_tools.cot"
REASON = 21
EXPLORE = 22
REFLECT = 23
PHASES = {REASON: "reason", EXPLORE: "explore", REFLECT: "reflect"}
RESERVED = frozenset({"ts", "phase", "msg", "logger"})

for _level, _name in PHASES.items():
    logging.addLevelName(_level, _name.upper())


class CotLogger:
    """``cot_logger.reason(msg, **fields)`` / ``.explore(...)`` / ``.reflect(...)``."""

    def __init__(self, logger: logging.Logger) -> None:
        self.logger = logger

    def _emit(self, level: int, msg: str, fields: dict[str, Any]) -> dict[str, Any] | None:
        if not self.logger.isEnabledFor(level):
            return None
        payload: dict[str, Any] = {
            "ts": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "phase": PHASES[level],
            "msg": str(msg),
        }
        for key, value in redact(fields).items():
            payload[f"field_{key}" if key in RESERVED else key] = value
        line = json.dumps(payload, ensure_ascii=False, default=str)
        self.logger.log(level, line, extra={"cot": payload}, stacklevel=3)
        return payload

    def reason(self, msg: str, **fields: Any) -> dict[str, Any] | None:
        return self._emit(REASON, msg, fields)

    def explore(self, msg: str, **fields: Any) -> dict[str, Any] | None:
        return self._emit(EXPLORE, msg, fields)

    def reflect(self, msg: str, **fields: Any) -> dict[str, Any] | None:
        return self._emit(REFLECT, msg, fields)


cot_logger = CotLogger(logging.getLogger(LOGGER_NAME))
if cot_logger.logger.level == logging.NOTSET:  # on by default; handlers decide where it goes
    cot_logger.logger.setLevel(REASON)

_HANDLER_TAG = "_ss_tools_cot_handler"


def configure_cot_logging(stream: IO[str] | None = None, level: int = REASON) -> logging.Handler:
    """Attach one handler printing the JSON lines as they are (idempotent). Used by the
    running server; tests read records through ``caplog`` instead."""
    logger = cot_logger.logger
    logger.setLevel(level)
    for handler in logger.handlers:
        if getattr(handler, _HANDLER_TAG, False):
            return handler
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    setattr(handler, _HANDLER_TAG, True)
    logger.addHandler(handler)
    logger.propagate = False
    return handler
