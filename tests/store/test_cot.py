"""The CoT logger: one JSON line per record, three phases, secrets redacted."""

from __future__ import annotations

import io
import json
import logging

import pytest

from app.reasoning import EXPLORE, LOGGER_NAME, REASON, REFLECT, configure_cot_logging, cot_logger


@pytest.mark.parametrize(
    ("method", "level", "phase"),
    [
        # a decision and its grounds
        ("reason", REASON, "reason"),
        # trying something / meeting the unexpected
        ("explore", EXPLORE, "explore"),
        # looking back at an outcome
        ("reflect", REFLECT, "reflect"),
    ],
)
def test_each_phase_logs_one_json_line(
    caplog: pytest.LogCaptureFixture, method: str, level: int, phase: str
) -> None:
    with caplog.at_level(REASON, logger=LOGGER_NAME):
        getattr(cot_logger, method)("tool excluded", tool="deploy_dashboard", attempt=1)
    (record,) = [r for r in caplog.records if r.name == LOGGER_NAME]
    assert record.levelno == level and logging.INFO < level < logging.WARNING
    line = record.getMessage()
    assert "\n" not in line
    data = json.loads(line)
    assert data["phase"] == phase and data["msg"] == "tool excluded"
    assert data["tool"] == "deploy_dashboard" and data["attempt"] == 1
    assert record.cot == data  # type: ignore[attr-defined]


def test_cot_fields_are_redacted_and_reserved_names_kept(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(REASON, logger=LOGGER_NAME):
        cot_logger.reason(
            "login",
            password="pw",
            headers={"Authorization": "Bearer x"},
            phase="sneaky",
            obj=object(),
        )
    data = json.loads(caplog.records[-1].getMessage())
    assert data["password"] == "***" and data["headers"] == {"Authorization": "***"}
    assert data["phase"] == "reason" and data["field_phase"] == "sneaky"
    assert data["obj"].startswith("<object")


def test_configured_handler_prints_plain_json_lines_once() -> None:
    stream = io.StringIO()
    logger = logging.getLogger(LOGGER_NAME)
    saved = (logger.level, logger.propagate, list(logger.handlers))
    try:
        h1 = configure_cot_logging(stream)
        h2 = configure_cot_logging(stream)
        assert h1 is h2
        cot_logger.explore("retrying", tool="search_dashboards")
        lines = stream.getvalue().splitlines()
        assert len(lines) == 1 and json.loads(lines[0])["phase"] == "explore"
    finally:
        logger.setLevel(saved[0])
        logger.propagate = saved[1]
        logger.handlers[:] = saved[2]
