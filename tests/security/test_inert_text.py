"""Superset text is inert: escaped, no raw HTML, no remote images, links
only to the configured Superset hosts — in the planner's answers and in the chat bubble."""

from __future__ import annotations

import json
from typing import Any

import markdown2
import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from nicegui import ui
from nicegui.testing import User

from app.events import MessageEvent
from app.planner import plan_reply
from app.safe_html import sanitize_html
from app.text import inert
from tests.ui.made_events import done

HOSTS = frozenset({"superset.example.com", "127.0.0.1:8088"})


def render(markdown: str) -> str:
    """What the chat bubble shows: markdown2, then the bubble's sanitizer."""
    html = markdown2.markdown(markdown, extras=["fenced-code-blocks", "tables"])
    return sanitize_html(html, HOSTS)


@pytest.mark.parametrize(
    ("text", "absent", "present"),
    [
        ("<img src=http://evil/p.png>", "<img", "&lt;img"),  # raw tag shown as text
        ("![pixel](http://evil/p.png)", "<img", "pixel"),  # markdown image inert
        ("[bank](http://evil.com/login)", "<a", "bank"),  # markdown link inert
        ("see http://evil.com/x", "<a", "http://evil.com/x"),  # foreign URL not clickable
        ("<script>alert(1)</script>", "<script", "alert(1)"),  # script shown as text
        ("**bold** _it_ `code`", "<strong", "**bold**"),  # no emphasis
        ("# Title\n- item\n1. first", "<h1", "# Title"),  # no headings or lists
        ("a | b\n--|--\n1 | 2", "<table", "a | b"),  # no table
        ("col\x00name \ud800", "\x00", "col"),  # invalid characters replaced
    ],
)
def test_superset_text_is_inert(text: str, absent: str, present: str) -> None:
    shown = render(inert(text, HOSTS))
    assert absent not in shown and present in shown


def test_link_to_a_configured_superset_host_stays_clickable() -> None:
    shown = render(inert("open https://superset.example.com/superset/dashboard/7/", HOSTS))
    assert '<a href="https://superset.example.com/superset/dashboard/7/"' in shown


@pytest.mark.parametrize(
    ("markdown", "absent"),
    [
        ("![x](http://evil/p.png)", "<img"),  # the model quoting an image
        ('<img src="http://evil/p.png">', "<img"),  # raw HTML in a message
        ("[x](javascript:alert(1))", "javascript:"),  # script link
        ("[x](https://superset.example.com@evil.com/)", "evil.com"),  # disguised host
        ("<iframe src=http://evil></iframe>", "<iframe"),  # frames
        ('<a href="http://evil.com" onclick="x()">y</a>', "onclick"),  # handlers
    ],
)
def test_chat_bubble_drops_images_scripts_and_foreign_links(markdown: str, absent: str) -> None:
    assert absent not in render(markdown)


def test_planner_answer_keeps_dashboard_text_inert() -> None:
    result = [
        {
            "id": 7,
            "dashboard_title": "Sales <b>Q1</b>",
            "status": "[published](http://evil.com)",
            "url": "http://evil.com/phish",
            "description": "![track](http://evil.com/pixel.png) <img src=x onerror=alert(1)>",
        }
    ]
    messages = [
        HumanMessage("find dashboards about sales"),
        AIMessage(
            content="",
            tool_calls=[{"name": "search_dashboards", "args": {}, "id": "c1", "type": "tool_call"}],
        ),
        ToolMessage(content=json.dumps(result), tool_call_id="c1", name="search_dashboards"),
    ]
    shown = render(plan_reply(messages, None).content)
    assert "<img" not in shown and "<a " not in shown and "<b>" not in shown
    assert "Sales &lt;b&gt;Q1&lt;/b&gt;" in shown


def test_planner_error_text_from_superset_is_inert() -> None:
    messages = [
        HumanMessage("check the health of dashboard 7"),
        AIMessage(
            content="",
            tool_calls=[
                {"name": "get_health_summary", "args": {}, "id": "c2", "type": "tool_call"}
            ],
        ),
        ToolMessage(content="ERROR: <img src=http://evil/x> failed", tool_call_id="c2"),
    ]
    assert "<img" not in render(plan_reply(messages, None).content)


async def test_chat_bubble_in_the_page_shows_no_remote_image(
    user: User, core: Any, sign_in: Any
) -> None:
    core.replies = [
        MessageEvent(text="Done ![p](http://evil/p.png) <img src=http://evil/x>"),
        done(),
    ]
    await sign_in("analyst")
    user.find(marker="chat-input").type("hi").trigger("keydown.enter")
    await user.should_see("Done", retries=30)
    bubbles = [m for m in user.find(kind=ui.markdown).elements if "Done" in m.content]
    assert bubbles and all("<img" not in b.props["innerHTML"] for b in bubbles)
