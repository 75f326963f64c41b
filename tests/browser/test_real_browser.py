"""One real-browser run of the main path: Chromium (Debian) via Playwright against
``python main.py`` as a subprocess. Screenshots of the main states go to
``tests/screenshots/`` (gitignored)."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import PASSWORD, SHOTS
from tests.chromium import chromium, sign_in
from tests.sandbox_fixtures import dashboard_exists
from tests.waiting import WAIT_MS

pytestmark = pytest.mark.browser

COUNTDOWN_S = 3  # the dangerous gate of the browser tests' ``server`` (their conftest)


def test_sign_in_prod_deep_link_dangerous_countdown_confirm_result(
    server, sandbox_dashboards, superset_sandbox
) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    # a dashboard on prod for this test to delete for real
    dash = sandbox_dashboards("prod", "Browser Throwaway", "browser")
    deep_link = f"/agent?objectId={dash}&objectName=Browser%20Throwaway&envId=prod"
    with chromium(viewport={"width": 1280, "height": 900}) as (context, expect):
        page = context.new_page()
        page.goto(server.url + deep_link)
        expect(page.get_by_label("Username")).to_be_visible(timeout=WAIT_MS)
        page.screenshot(path=str(SHOTS / "01-login.png"))
        sign_in(page, "ops", PASSWORD)

        # back on the deep link, with the production warning
        expect(page.get_by_text("PRODUCTION", exact=True)).to_be_visible(timeout=WAIT_MS)
        assert page.url.endswith(deep_link)
        page.screenshot(path=str(SHOTS / "02-prod-banner.png"))

        page.get_by_label("message").fill("delete this dashboard")
        page.keyboard.press("Enter")
        expect(page.get_by_text("Dangerous action")).to_be_visible(timeout=WAIT_MS)
        countdown = page.get_by_text(re.compile(r"Confirm available in \d+ s"))
        expect(countdown).to_be_visible()
        assert countdown.get_attribute("aria-live") == "assertive"
        confirm = page.get_by_role("button", name="Confirm")
        expect(confirm).to_be_disabled()
        page.screenshot(path=str(SHOTS / "03-countdown.png"))

        # a second tab of the same conversation shows the pending confirmation
        second = context.new_page()
        second.goto(server.url + "/agent")
        expect(second.get_by_text("Dangerous action")).to_be_visible(timeout=WAIT_MS)
        expect(second.get_by_text("delete this dashboard")).to_be_visible()
        second.close()

        expect(page.get_by_text("You can confirm now")).to_be_visible(
            timeout=COUNTDOWN_S * 1000 + WAIT_MS
        )
        expect(confirm).to_be_enabled()
        page.screenshot(path=str(SHOTS / "04-countdown-done.png"))
        confirm.click()

        # the result: the dashboard is gone from prod, a backup was taken first
        expect(page.get_by_text("Done", exact=True).first).to_be_visible(timeout=60_000)
        expect(page.get_by_text("Ready", exact=True)).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_text("Dangerous action")).to_be_hidden()
        page.screenshot(path=str(SHOTS / "05-result.png"))
        # one plain sentence: what was deleted, the backup, and how to bring it back
        answer = rf"Deleted “Browser Throwaway” \(#{dash}\) from prod\. Backup \w+… was taken"
        expect(page.get_by_text(re.compile(answer)).first).to_be_visible()
        assert not dashboard_exists(superset_sandbox, "prod", dash)  # really deleted on prod
