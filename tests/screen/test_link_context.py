"""A deep link is data from anywhere (a Superset page's "Ask the agent", a pasted URL):
its objectId must be an id or a slug, else the link gives no object at all (never a
guess, never a wider tool set); its name is one line of inert text, cut to the server's
limit."""

from __future__ import annotations

import pytest

from app.screen.uicontext import context_from_params, pill_label
from app.text import one_line

DASH = {"objectType": "dashboard", "objectName": "Sales", "envId": "dev"}
HOSTILE = "<script>window.__pwned=1</script>\"'" + "é" * 300


@pytest.mark.parametrize(
    ("object_id", "kept"),
    [
        ("42", True),  # a Superset id
        ("customer-health", True),  # a slug
        ("sales_2024.v2~x", True),  # slugs use these too
        ("<script>", False),  # markup
        ("1 OR 1=1", False),  # spaces
        ("../../etc", False),  # a path
        ('42"', False),  # a quote
        ("-1", False),  # starts with a sign, not a letter or digit
        ("1" * 65, False),  # longer than any id
        ("дашборд", False),  # not the ids Superset's URLs carry
    ],
)
def test_an_object_id_that_is_not_an_id_gives_no_context(object_id: str, kept: bool) -> None:
    context, env = context_from_params({**DASH, "objectId": object_id})
    assert env == "dev"  # the environment is kept either way
    if kept:
        assert context is not None and context["objectId"] == object_id
    else:
        assert context is None
        assert pill_label(context, env, "en") == "No context selected"


def test_a_hostile_title_becomes_one_cut_line_of_text() -> None:
    context, _ = context_from_params(
        {**DASH, "objectId": "2", "objectName": "a\nb\u200b\u202e" + HOSTILE}
    )
    assert context is not None
    name = context["objectName"]
    assert name.startswith("a b<script>window.__pwned=1</script>\"'é")  # text, as written
    assert len(name) == 256 and "\n" not in name and "\u202e" not in name


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("Sales\nOverview", None, "Sales Overview"),  # a line break is a space
        ("  a \t b  ", None, "a b"),  # spaces collapse
        ("x\u200by\u202ez", None, "xyz"),  # zero-width and bidi controls go
        ("a\x00b\x1bc", None, "a b c"),  # C0 controls are spaces
        ("[USER CONTEXT]", None, "[USER CONTEXT]"),  # brackets stay (not a prompt here)
        ("abcdef", 3, "abc"),  # cut
        ("ab   cd", 3, "ab"),  # no trailing space after a cut
    ],
)
def test_one_line(text: str, limit: int | None, expected: str) -> None:
    assert one_line(text, limit) == expected
