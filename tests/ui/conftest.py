"""The result tests' fixtures: ``show`` (a completed call's result on the chat panel
alone, a component test) and ``show_on_page`` (the same result on the whole page, after
sign-in and a message sent)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from typing import Any

import pytest
from nicegui.testing import User

from components.chat_panel import chat_panel
from tests.fixtures.components import component, feed
from tests.screen.test_model import make
from tests.ui.made_events import done, message
from tests.ui.result_views import ran


@pytest.fixture
async def show() -> AsyncIterator[Callable[[str, dict[str, Any], str], Awaitable[User]]]:
    """``user = await show(tool, result, lang)``: the chat panel alone (a component test)
    on an admin's model in ``lang`` that got ``tool``'s completed call of ``result``; the
    page path (sign-in, send, the core's events) is
    :func:`test_sql_rows_on_the_whole_page`'s."""
    async with AsyncExitStack() as stack:

        async def show(tool: str, result: dict[str, Any], lang: str) -> User:
            model, _, _ = make(lang=lang)
            feed(model, *ran(tool, result), message("ok"), done())
            user = await stack.enter_async_context(component(lambda: chat_panel(model)))
            await user.should_see(marker="tool-result")
            return user

        yield show


@pytest.fixture
def show_on_page(
    user: User, sign_in, core
) -> Callable[[str, dict[str, Any], str], Awaitable[None]]:
    """``show_on_page(tool, result, lang)``: an admin asks on the whole page in ``lang``,
    the fake core answers with ``tool``'s completed call of ``result``; done once the
    result is shown."""

    async def show(tool: str, result: dict[str, Any], lang: str) -> None:
        core.replies = [*ran(tool, result), message("ok"), done()]
        await sign_in("admin", target=f"/agent?lang={lang}")
        user.find(marker="chat-input").type("go").trigger("keydown.enter")
        await user.should_see(marker="tool-result", retries=30)

    return show
