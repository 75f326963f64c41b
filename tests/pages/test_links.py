"""Deep links and the ?next= guard."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from app.pages.links import agent_link, dashboard_markdown_link, is_local_path, main


def test_agent_link_round_trips_through_the_query_string() -> None:
    url = agent_link(
        "https://a.example/",
        object_type="dashboard",
        object_id=42,
        object_name="Sales & Ops",
        env_id="prod",
    )
    parts = urlsplit(url)
    assert parts.path == "/agent"
    assert parse_qs(parts.query) == {
        "objectType": ["dashboard"],
        "objectId": ["42"],
        "objectName": ["Sales & Ops"],
        "envId": ["prod"],
    }


def test_agent_link_without_context_is_the_bare_page() -> None:
    assert agent_link() == "/agent"


def test_agent_link_refuses_unknown_object_type() -> None:
    with pytest.raises(ValueError, match="objectType"):
        agent_link(object_type="chart")


def test_dashboard_markdown_link_is_pasteable_markdown(capsys) -> None:
    line = dashboard_markdown_link(
        "https://a.example", dashboard_id=7, dashboard_title="KPIs", env_id="staging", label="Ask"
    )
    assert line == (
        "[Ask](https://a.example/agent?objectType=dashboard&objectId=7"
        "&objectName=KPIs&envId=staging)"
    )
    assert (
        main(
            [
                "--base-url",
                "https://a.example",
                "--dashboard-id",
                "7",
                "--title",
                "KPIs",
                "--env",
                "staging",
                "--label",
                "Ask",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.strip() == line


@pytest.mark.parametrize(
    ("target", "ok"),
    [
        ("/agent?objectId=1", True),  # a local deep link
        ("/audit", True),  # another local page
        ("https://evil.example/agent", False),  # absolute URL: open redirect
        ("//evil.example/agent", False),  # scheme-relative URL: open redirect
        ("/\\evil.example", False),  # backslash trick some browsers normalise
        ("agent", False),  # relative path
        ("", False),  # nothing
        ("/agent\nSet-Cookie: x", False),  # control characters
    ],
)
def test_next_must_be_a_local_path(target, ok) -> None:
    assert is_local_path(target) is ok
