"""A page module imported between two page tests still serves its page in the next one.

NiceGUI's test plugin clears the page routes at each set-up and unloads, at teardown, only
the modules whose pages it saw; ``tests/conftest.py`` forgets the page modules before each
``user`` test. Without that, the third test below got a 404 for /agent (CI, whole suite)."""

from __future__ import annotations

import importlib
import sys

from nicegui.testing import User

from app.pages import PAGE_MODULES


async def test_first_page_test_signs_in(user: User, core, sign_in) -> None:
    await sign_in("analyst")
    await user.should_see("Send", retries=30)


def test_a_plain_test_imports_every_page_module() -> None:
    for name in PAGE_MODULES:
        importlib.import_module(name)
    assert set(PAGE_MODULES) <= set(sys.modules)


async def test_the_next_page_test_still_gets_its_pages(user: User, core, sign_in) -> None:
    await sign_in("admin", target="/agent?lang=ru")
    await user.should_see("Отправить", retries=30)
    await user.open("/audit")  # the other page modules' pages are registered as well
    await user.should_not_see(marker="sign-in")
