"""Redaction of audit arguments and CoT fields: secret keys masked, long strings cut."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from app.text import redact

REDACTIONS: list[Any] = [
    # password keys are masked
    pytest.param({"password": "pw"}, {"password": "***"}, id="password"),
    # match is case-insensitive and by substring
    pytest.param(
        {"DB_Password": "pw", "refresh_token": "t"},
        {"DB_Password": "***", "refresh_token": "***"},
        id="substring_case",
    ),
    # secret, api_key, authorization, cookie, credential
    pytest.param(
        {"client_secret": 1, "api_key": 2, "authorization": 3, "Cookie": 4, "credentials": 5},
        {
            "client_secret": "***",
            "api_key": "***",
            "authorization": "***",
            "Cookie": "***",
            "credentials": "***",
        },
        id="all_markers",
    ),
    # nested dicts inside lists are walked
    pytest.param(
        {"items": [{"token": "x", "id": 1}]},
        {"items": [{"token": "***", "id": 1}]},
        id="nested_list",
    ),
    # a whole dict under a secret key is masked, not walked
    pytest.param(
        {"credential": {"user": "u", "pw": "p"}}, {"credential": "***"}, id="secret_subtree"
    ),
    # harmless keys and scalars pass through
    pytest.param(
        {"dashboard_id": "12", "page": 0, "dry": True, "x": None},
        {"dashboard_id": "12", "page": 0, "dry": True, "x": None},
        id="plain",
    ),
    # long strings are cut to 2000 characters
    pytest.param({"sql": "s" * 5000}, {"sql": "s" * 1999 + "…"}, id="long_string"),
    # tuples and sets become lists; datetimes become ISO text
    pytest.param(
        {"ids": ("a",), "at": datetime(2026, 1, 1, tzinfo=UTC)},
        {"ids": ["a"], "at": "2026-01-01T00:00:00+00:00"},
        id="json_safe",
    ),
]


@pytest.mark.parametrize(("given", "stored"), REDACTIONS)
def test_redact_masks_secret_keys_and_cuts_long_strings(given: Any, stored: Any) -> None:
    assert redact(given) == stored


def test_redact_survives_deeply_nested_input() -> None:
    deep: dict[str, Any] = {}
    cur = deep
    for _ in range(500):
        cur["k"] = {}
        cur = cur["k"]
    out = redact(deep)
    depth = 0
    while isinstance(out, dict):
        out, depth = out["k"], depth + 1
    assert out == "…" and depth < 20


def test_long_keys_are_checked_but_not_remembered() -> None:
    """A short key's verdict is remembered; a long one is checked every time (a flood of
    large keys cannot grow the memory) and masked all the same."""
    from app import text as r

    before = r._is_secret_text.cache_info().currsize
    long_secret, long_plain = "x" * 100 + "_password", "y" * 100
    out = r.redact({long_secret: "hunter2", long_plain: "kept", "api-key": "k", "name": "n"})
    assert out == {long_secret: r.REDACTED, long_plain: "kept", "api-key": r.REDACTED, "name": "n"}
    assert r._is_secret_text.cache_info().currsize <= before + 2  # only the two short keys
