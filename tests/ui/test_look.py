"""A calm look: neutral agent bubbles and distinct user bubbles, the outcome as the tool
card's icon and colour, cards folded once done, markdown lists as lists, a steps bar that
does not repeat the pill, and dark text on light backgrounds (contrast computed)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from nicegui.testing import User

from app.events import ErrorEvent, ToolEndEvent, ToolStartEvent
from components.chat_panel import chat_panel
from tests.events import timed_out
from tests.fixtures.components import component, feed
from tests.screen.test_model import make
from tests.ui.made_events import done, message

DEEP = "/agent?objectType=dashboard&objectId=42&objectName=Sales&envId=prod"
CSS = Path(__file__).resolve().parents[2] / "assets" / "agent.css"


async def send(user: User, text: str = "go") -> None:
    user.find(marker="chat-input").type(text).trigger("keydown.enter")


async def test_agent_bubbles_are_neutral_and_user_bubbles_distinct_even_for_errors(
    user: User, core, sign_in
) -> None:
    core.replies = [message("Fine."), ErrorEvent(code="agent_error", message="boom"), done()]
    await sign_in("admin")
    await send(user)
    await user.should_see("The agent could not finish this turn.", retries=30)
    mine = next(iter(user.find(marker="user-message").elements))
    theirs = list(user.find(marker="assistant-message").elements)
    assert mine.props["bg-color"] == "blue-1"
    assert {b.props["bg-color"] for b in theirs} == {"grey-2"}  # the error bubble too
    assert all(b.props["text-color"] == "grey-10" for b in [mine, *theirs])
    await user.should_see(marker="message-error")  # an icon says it is an error


START = ToolStartEvent(
    call_id="c1", tool_name="deploy_dashboard", tool_args={"x": "1"}, is_write_tool=True
)


@pytest.mark.parametrize(
    ("end", "icon", "tone"),
    [
        (
            ToolEndEvent(call_id="c1", tool_name="x", status="completed"),
            "check_circle",
            "text-green-800",
        ),
        (
            ToolEndEvent(call_id="c1", tool_name="x", status="failed", error="400"),
            "error",
            "text-red-700",
        ),
        (ToolEndEvent(call_id="c1", tool_name="x", status="cancelled"), "cancel", "text-gray-600"),
        # a write that timed out: status unknown
        (
            timed_out(timeout_s=1, message="t"),
            "help",
            "text-amber-800",
        ),
    ],
)
async def test_the_outcome_is_the_tool_cards_icon_and_colour(end, icon, tone) -> None:
    model, _, _ = make()
    feed(model, START, end, done())
    async with component(lambda: chat_panel(model)) as user:
        await user.should_see(marker="tool-card")
        await user.should_not_see(marker="tool-args")  # folded once done
        element = next(iter(user.find(marker="tool-icon").elements))
        assert element.props["name"] == icon and tone in element.classes
        user.find(marker="tool-args-toggle").click()
        await user.should_see(marker="tool-args")  # unfolds from the header


async def test_a_running_card_shows_its_arguments() -> None:
    model, _, _ = make()
    feed(model, START)
    async with component(lambda: chat_panel(model)) as user:
        await user.should_see("x: 1")


async def test_a_list_answer_renders_as_list_items() -> None:
    model, _, _ = make()
    feed(model, message("I can:\n- search dashboards\n- check health"), done())
    async with component(lambda: chat_panel(model)) as user:
        await user.should_see(marker="message-text")
        bodies = [e.props.get("innerHTML", "") for e in user.find(marker="message-text").elements]
        assert any(b.count("<li>") == 2 for b in bodies)


@pytest.mark.parametrize(("lang", "step"), [("en", "Context"), ("ru", "Контекст")])
async def test_the_steps_bar_does_not_repeat_the_pill(user: User, core, sign_in, lang, step):
    await sign_in("admin", target=f"{DEEP}&lang={lang}")
    await user.should_see(marker="step-context", retries=30)
    chip = next(iter(user.find(marker="step-context").elements))
    assert chip.text == step
    pill = next(iter(user.find(marker="context-pill").elements))
    assert "Sales" in pill.text and "Sales" not in chip.text


# ---- contrast (WCAG 2.x relative luminance) ----------------------------------------------
def luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


PROD_BG = re.search(r"\.bg-warning-light \{ background-color: (#\w{6})", CSS.read_text())
PAIRS = [
    # (text, background, why)
    ("#111827", PROD_BG.group(1) if PROD_BG else "", "body text on the prod warning background"),
    ("#374151", "#fff4e5", "quiet text (names, counts) on the prod warning background"),
    ("#4b5563", "#ffffff", "text-gray-600 on a tool card"),
    ("#212121", "#eeeeee", "agent bubble: grey-10 on grey-2"),
    ("#212121", "#e3f2fd", "user bubble: grey-10 on blue-1"),
    ("#ffffff", "#1d4ed8", "buttons: white on the page's primary"),
    ("#ffffff", "#1e40af", "the active step: white on blue-800"),
    ("#ffffff", "#b91c1c", "the PRODUCTION banner: white on red-700"),
    ("#991b1b", "#ffffff", "errors in a card: red-800"),
    ("#1e40af", "#ffffff", "links: blue-800"),
]


@pytest.mark.parametrize(("text", "background", "why"), PAIRS)
def test_text_contrast_is_at_least_aa(text: str, background: str, why: str) -> None:
    assert contrast(text, background) >= 4.5, why
