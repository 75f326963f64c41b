"""What a person does on the product's pages, in the browser tests: open a page and sign in
(:func:`signed_in`; another tab: :func:`opened`), type a message until the composer takes
it (:func:`ask`), and wait until the turn is over (:func:`settled`). Waits are conditions,
never sleeps: a loaded machine renders slowly."""

from __future__ import annotations

import re
import time
from typing import Any

from tests.browser.conftest import PASSWORD
from tests.chromium import sign_in
from tests.waiting import WAIT_S

TURN_MS = 60_000  # how long one turn of the offline planner may take on a loaded machine


def signed_in(
    context: Any, expect: Any, url: str, username: str = "ops", password: str = PASSWORD
) -> Any:
    """A new page of ``context`` on ``url``, signed in as ``username`` (the login form
    sends it back to ``url``) once the page is ready for a message."""
    page = context.new_page()
    page.goto(url)
    sign_in(page, username, password)
    settled(page, expect)
    return page


def opened(context: Any, expect: Any, url: str) -> Any:
    """A new page of ``context`` (already signed in) on ``url``, ready for a message."""
    page = context.new_page()
    page.goto(url)
    settled(page, expect)
    return page


def ask(page: Any, text: str) -> None:
    """Type ``text`` and press Enter until the composer takes it (the box clears). Under
    load the page may still be finishing the previous turn when Enter lands; the composer
    then keeps the text, and a second Enter sends it once (an empty box sends nothing)."""
    from playwright.sync_api import expect

    box = page.get_by_label("message")
    box.fill(text)
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        box.press("Enter")
        try:
            expect(box).to_have_value("", timeout=3_000)
            return
        except AssertionError:
            continue
    raise AssertionError(f"the composer never sent {text!r}")


def settled(page: Any, expect: Any) -> None:
    """The turn is over: the page says Ready / Готов again."""
    expect(page.get_by_text(re.compile(r"^(Ready|Готов)$"))).to_be_visible(timeout=TURN_MS)
