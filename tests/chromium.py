"""A real Chromium (Debian's, via Playwright) for the browser tests and the security
probes: ``chromium()`` opens a fresh browser context and closes the browser afterwards;
``sign_in()`` fills the login form of a page."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.ui_bench import CHROMIUM, CHROMIUM_ARGS
from tests.support import require_or_skip
from tests.waiting import WAIT_MS


def require_chromium() -> Any:
    """Playwright's sync API, or skip (fail in CI) when Chromium or playwright is missing."""
    require_or_skip(
        Path(CHROMIUM).exists() or bool(shutil.which("chromium")),
        "Debian chromium is not installed (/usr/bin/chromium)",
    )
    try:
        # playwright is optional: without it the test is skipped (failed in CI) above
        from playwright import sync_api
    except ImportError:
        require_or_skip(False, "the playwright package is not installed")
    return sync_api


@contextmanager
def chromium(**context_options: Any) -> Iterator[tuple[Any, Any]]:
    """A new browser context (``context_options``: Playwright's, e.g. ``viewport``) in a
    fresh Chromium, with Playwright's ``expect``; the browser is closed on the way out.
    Its waits (``expect``'s and the page actions') last up to ``tests.waiting.WAIT_S``: a
    loaded machine renders slowly. Skips (fails in CI) when Chromium or playwright is
    missing."""
    sync_api = require_chromium()
    sync_api.expect.set_options(timeout=WAIT_MS)
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(**context_options)
            context.set_default_timeout(WAIT_MS)
            yield context, sync_api.expect
        finally:
            browser.close()


def sign_in(page: Any, username: str, password: str) -> None:
    """Fill the login form on ``page``, press Sign in, and wait until the page has left
    the login form (the sign-in's own navigation done: a ``goto`` right after it would
    otherwise abort that navigation, or be aborted by it, on a busy machine)."""
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: "/login" not in url, timeout=WAIT_MS)
    page.wait_for_load_state("load", timeout=WAIT_MS)
