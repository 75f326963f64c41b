"""Log lines carry untrusted text escaped: control characters are shown, never obeyed.

A request path, a header, a username, a tool name or an error's text may hold a newline,
a carriage return, ESC (a terminal's escape sequences, OSC-8 links), BEL or a Unicode line
separator. Written as they are, one request could forge a whole log line
(``/x%0A2026-01-01 INFO login ok for admin``) or drive the operator's terminal.

:func:`escape_log_records` replaces the logging module's record factory, once per
process: every record of every logger (the product's, uvicorn's error and access logs,
NiceGUI's, the libraries') has its message and its arguments escaped when it is made,
before any handler or formatter sees it, whatever handlers a later logging setup
installs (uvicorn configures its own when the server starts). One record is one line.

Escaped (:func:`shown`): every C0 control but tab (``\\n`` and ``\\r`` as those two
characters, the others as ``\\u001b`` …), DEL, the C1 controls (U+0080–U+009F, among
them NEL and the 8-bit CSI), the line and paragraph separators (U+2028, U+2029) and the
bidirectional controls (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069), which reorder
what a terminal shows. ``\\uXXXX`` keeps a JSON line (the reasoning log) valid JSON.

Not covered: a traceback (``exc_info``) is formatted by the handler below the line, as
before; the product's own unexpected-error log writes the frames without the message
(:func:`app.api.error_shape.log_unexpected`).
"""

from __future__ import annotations

import logging
import numbers
from collections.abc import Callable, Mapping
from typing import Any

_NAMED = {0x0A: "\\n", 0x0D: "\\r"}
_CODES = [*range(0x00, 0x09), *range(0x0A, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029]
_CODES += [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_TABLE: dict[int, str] = {cp: _NAMED.get(cp, f"\\u{cp:04x}") for cp in _CODES}
_TAG = "_ss_tools_escapes"


def shown(text: str) -> str:
    """``text`` with its control characters written out (see the module docstring)."""
    return text.translate(_TABLE)


class Shown:
    """An argument that is neither text nor a number, shown escaped: its ``str``,
    ``repr`` and ``format`` (an exception's message, a path, a request object)."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __str__(self) -> str:
        return shown(str(self.value))

    def __repr__(self) -> str:
        return shown(repr(self.value))

    def __format__(self, spec: str) -> str:
        return shown(format(self.value, spec))


def _arg(value: Any) -> Any:
    if isinstance(value, str):
        return shown(value)
    if value is None or isinstance(value, numbers.Number | bytes):  # %d, %.1f; bytes: repr
        return value
    return Shown(value)


def escaped(record: logging.LogRecord) -> logging.LogRecord:
    """``record`` with its message and arguments escaped (in place; returned)."""
    record.msg = shown(record.msg) if isinstance(record.msg, str) else Shown(record.msg)
    args = record.args
    if isinstance(args, tuple):
        record.args = tuple(_arg(a) for a in args)
    elif isinstance(args, Mapping):
        record.args = {k: _arg(v) for k, v in args.items()}
    return record


def escape_log_records() -> Callable[..., logging.LogRecord]:
    """Make every log record of this process escaped (idempotent); returns the factory
    in force."""
    previous = logging.getLogRecordFactory()
    if getattr(previous, _TAG, False):
        return previous

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        return escaped(previous(*args, **kwargs))

    setattr(factory, _TAG, True)
    logging.setLogRecordFactory(factory)
    return factory
