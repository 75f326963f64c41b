"""What a chat bubble renders: lists glued to a line become lists, the text is never read
for offers (they arrive typed on the events), raw HTML, images and foreign links are
inert."""

from __future__ import annotations

import markdown2
import pytest

from app.safe_html import sanitize_html
from app.screen.markdown_text import chat_markdown, normalize_markdown
from components.markdown import EXTRAS, without_raw_html

HOSTS = ("superset:8088",)


def html(text: str) -> str:
    """What a chat bubble shows: raw HTML off, markdown2, the shared sanitizer."""
    rendered = markdown2.markdown(without_raw_html(chat_markdown(text)), extras=EXTRAS)
    return sanitize_html(rendered, HOSTS)


@pytest.mark.parametrize(
    "text",
    [
        # the capabilities answer: a list right after a line of text
        "I can:\n- search_dashboards — find dashboards\n- get_health_summary — check one",
        # an ordered list glued to its line
        "Steps:\n1. back up\n2. delete",
        # a list after a blank line stays a list
        "I can:\n\n- a\n- b",
    ],
)
def test_a_list_glued_to_a_line_renders_as_list_items(text: str) -> None:
    out = html(text)
    assert out.count("<li>") == 2 and "<p>" in out


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        # a tool's name in a refusal, a table's columns in a message: underscores stay
        ("The check before “superset_create_dataset” failed", "“superset_create_dataset”"),
        ("select order_id, customer_id from sales", "select order_id, customer_id from"),
        ("__init__ and _this_", "__init__ and _this_"),
        (r"“Sales\_demo” (#7)", "“Sales_demo” (#7)"),  # escaped Superset text still reads right
    ],
)
def test_underscores_are_never_emphasis(text: str, shown: str) -> None:
    out = html(text)
    assert shown in out and "<em>" not in out and "<strong>" not in out


def test_stars_still_emphasise() -> None:
    assert html("**bold** and *this*").strip() == "<p><strong>bold</strong> and <em>this</em></p>"


def test_code_fences_are_left_alone() -> None:
    text = "Run:\n```sql\nselect 1\n- not a list\n```"
    assert "- not a list" in normalize_markdown(text)
    assert "<li>" not in html(text)


def test_a_table_glued_to_a_line_renders_as_a_table() -> None:
    assert "<table>" in html("Totals:\n| a | b |\n|---|---|\n| 1 | 2 |")


def test_a_list_of_requests_in_an_answer_is_text_not_buttons() -> None:
    """Offers are typed on the events (MessageEvent.offers); an answer that happens to
    look like the planner's old markdown stays the text it is."""
    text = (
        "Which one do you mean?\n\n"
        "- “Sales demo” (#7): `check the health of dashboard 7 in dev`\n\n"
        "Continue without this page's context: `delete dashboard 42 in prod`"
    )
    assert chat_markdown(text) == text
    assert "<li>" in html(text) and "Continue without this page" in html(text)


@pytest.mark.parametrize(
    ("text", "absent"),
    [
        ("<script>alert(1)</script>", "<script>"),  # raw HTML is text
        ("<img src=x onerror=alert(1)>", "<img"),
        ("![logo](http://evil.example/x.png)", "<img"),  # images dropped
        ("[click](http://evil.example/p)", "<a "),  # links only to Superset hosts
        ("[x][1]\n\n[1]: http://evil.example", "<a "),
    ],
)
def test_raw_html_images_and_foreign_links_are_inert(text: str, absent: str) -> None:
    assert absent not in html(text)


def test_a_link_to_an_allowed_superset_host_stays_and_code_keeps_its_text() -> None:
    rendered = html("[Sales](http://superset:8088/d/7) `<b>` and <b>raw</b>")
    assert '<a href="http://superset:8088/d/7" rel="noopener noreferrer">Sales</a>' in rendered
    assert "<code>&lt;b&gt;</code>" in rendered
    assert "&lt;b&gt;raw&lt;/b&gt;" in rendered  # raw HTML is shown, not parsed
