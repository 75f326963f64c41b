"""Log forging: untrusted text in a log line is shown escaped, never obeyed. A request
path, a forwarded address, a username or an error's text holding a newline, ESC, BEL, NEL
or a bidi control used to reach the server log as is (one request could write a forged
line). Every record of the process is escaped when it is made (``app.logtext``), the
product's lines and uvicorn's access log alike; ``main.py`` installs it at start."""

from __future__ import annotations

import json
import logging
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from uvicorn.logging import AccessFormatter

from app.api.error_shape import log_unexpected
from app.logtext import Shown, escape_log_records, shown
from tests.server_proc import Server, server_env

FORGED = "2026-01-01 12:00:00 INFO ss_tools.auth: login ok for admin"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/x\n" + FORGED, "/x\\n" + FORGED),  # a newline: the forged line stays on this one
        ("a\r\nb", "a\\r\\nb"),  # CR LF
        ("\x1b[2J\x1b[31mred", "\\u001b[2J\\u001b[31mred"),  # ESC: clear screen, colours
        (
            "\x1b]8;;https://evil.example\x07link\x1b]8;;\x07",
            ("\\u001b]8;;https://evil.example\\u0007link\\u001b]8;;\\u0007"),
        ),  # an OSC-8 hyperlink ended by BEL
        ("nel\x85line", "nel\\u0085line"),  # NEL: a line break to str.splitlines()
        ("csi\x9b31m", "csi\\u009b31m"),  # the 8-bit CSI (a C1 control)
        ("ls\u2028ps\u2029", "ls\\u2028ps\\u2029"),  # Unicode line and paragraph separators
        ("admin\u202e.txt", "admin\\u202e.txt"),  # a bidi override reorders what is shown
        ("del\x7f nul\x00", "del\\u007f nul\\u0000"),  # DEL and NUL
        ("tab\tkept", "tab\tkept"),  # a tab is no line break: kept
        ("Привет, données – ok", "Привет, données – ok"),  # letters of any script: kept
        ("a\\nb", "a\\nb"),  # a backslash typed by the sender stays as it is
    ],
)
def test_control_characters_are_written_out(text: str, expected: str) -> None:
    assert shown(text) == expected
    assert "\n" not in shown(text) and len(shown(text).splitlines()) == 1


@pytest.fixture
def escaping() -> Iterator[None]:
    """The product's record factory in this process (restored after the test)."""
    previous = logging.getLogRecordFactory()
    escape_log_records()
    try:
        yield
    finally:
        logging.setLogRecordFactory(previous)


def _lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return caplog.text.splitlines()


def test_a_request_path_in_the_unexpected_error_log_forges_no_line(
    escaping: None, caplog: pytest.LogCaptureFixture
) -> None:
    try:
        raise RuntimeError("boom")
    except RuntimeError as exc:
        with caplog.at_level(logging.ERROR, logger="ss_tools.api"):
            log_unexpected("GET", "/api/x\n" + FORGED, exc)
    [line] = _lines(caplog)  # one record, one line
    assert "/api/x\\n" + FORGED in line and not line.startswith(FORGED)


def test_every_kind_of_argument_is_escaped_and_numbers_keep_their_format(
    escaping: None, caplog: pytest.LogCaptureFixture
) -> None:
    log = logging.getLogger("ss_tools.test")
    with caplog.at_level(logging.INFO, logger="ss_tools.test"):
        log.info("user %s role %r n=%d t=%.1f", "ana\nroot", "x\x1b", 3, 2.5)
        log.info("error: %s", ValueError("bad\n" + FORGED))  # an exception's text
        log.info("%(who)s asked", {"who": "eve\r\nadmin"})  # mapping arguments
        log.info("a message built by its caller: /p\n" + FORGED)  # no arguments at all
        log.info(Path("/tmp/x\ny"))  # a message that is not a string
    assert all(line.startswith("INFO") for line in _lines(caplog))  # no forged line
    messages = [r.getMessage() for r in caplog.records]
    assert messages == [
        "user ana\\nroot role 'x\\\\u001b' n=3 t=2.5",
        "error: bad\\n" + FORGED,
        "eve\\r\\nadmin asked",
        "a message built by its caller: /p\\n" + FORGED,
        "/tmp/x\\ny",
    ]
    assert all("\n" not in m for m in messages)


def test_installing_twice_escapes_once(escaping: None, caplog: pytest.LogCaptureFixture) -> None:
    first = escape_log_records()
    assert escape_log_records() is first is logging.getLogRecordFactory()
    with caplog.at_level(logging.INFO, logger="ss_tools.test"):
        logging.getLogger("ss_tools.test").info("%s", "a\nb")
    assert caplog.records[-1].getMessage() == "a\\nb"


def test_a_json_line_stays_json(escaping: None, caplog: pytest.LogCaptureFixture) -> None:
    """The reasoning log writes JSON lines: what is escaped in them is still valid JSON."""
    text = json.dumps({"msg": "nel\x85 ls\u2028 rlo\u202e"}, ensure_ascii=False)
    with caplog.at_level(logging.INFO, logger="ss_tools.test"):
        logging.getLogger("ss_tools.test").info(text)
    assert json.loads(caplog.records[-1].getMessage()) == {"msg": "nel\x85 ls\u2028 rlo\u202e"}


def test_uvicorns_access_log_shows_the_path_and_address_escaped(escaping: None) -> None:
    formatter = AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s')
    record = logging.getLogger("uvicorn.access").makeRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
        ("1.2.3.4\x85" + FORGED, "GET", "/x\n" + FORGED, "1.1", 404), None,
    )  # fmt: skip
    line = formatter.format(record)
    assert len(line.splitlines()) == 1 and "\\u0085" + FORGED in line and "/x\\n" in line
    assert line.endswith("404 Not Found")  # the status keeps its number and phrase


def test_an_argument_that_is_no_text_is_shown_escaped() -> None:
    value = Shown(ValueError("a\nb"))
    assert (str(value), repr(value), f"{value}") == ("a\\nb", "ValueError('a\\nb')", "a\\nb")


def _send(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request)
        return s.recv(64)


def _log_lines(server: Server, marker: str, timeout_s: float = 30) -> list[str]:
    """The server log's lines once ``marker`` shows in it (the access log is written after
    the answer is sent)."""
    deadline = time.monotonic() + timeout_s
    while True:
        text = server.log_path.read_text(encoding="utf-8", errors="replace")
        if marker in text or time.monotonic() > deadline:
            return text.splitlines()
        time.sleep(0.1)


@pytest.mark.timeout(120)
def test_an_unauthenticated_request_forges_no_line_in_the_real_servers_log(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    with Server(server_env(data, SS_TOOLS_LOG_LEVEL="info")) as server:
        # a forwarded address (trusted from 127.0.0.1, as behind a local proxy) holding NEL
        xff = b"X-Forwarded-For: 10.0.0.1\x85" + FORGED.encode() + b" FORGED-1\r\n"
        answer = _send(server.port, b"GET /api/nope HTTP/1.1\r\nHost: a\r\n" + xff + b"\r\n")
        assert answer.startswith(b"HTTP/1.1 404")
        # a newline in the path, percent-encoded as a client must send it
        path = b"/api/x%0A" + FORGED.replace(" ", "%20").encode() + b"%20FORGED-2"
        assert _send(server.port, b"GET " + path + b" HTTP/1.1\r\nHost: a\r\n\r\n")
        lines = _log_lines(server, "FORGED-2")
    forged = [line for line in lines if line.startswith(("2026", "\x85")) or "\x85" in line]
    assert forged == [], forged
    assert any("10.0.0.1\\u0085" + FORGED in line and "FORGED-1" in line for line in lines)
    assert any("/api/x%0A" in line and "FORGED-2" in line for line in lines)
