"""Edit before approving in a real browser: Chromium (Debian) via Playwright
against ``python main.py`` and the real Superset sandbox.

A deploy of the seeded "Sales Overview" dashboard is asked for staging; the person edits
its target environment to prod in the card's form; the server checks the edit again and
answers with a NEW, prod-styled confirmation (the old one is spent). The person then
cancels with a reason, which the agent acknowledges. The same form on the Russian page
speaks Russian. Screenshots go to
``tests/screenshots/`` (gitignored).

The sandbox runs two Superset instances, dev and prod. There is no third instance, so
the environments file adds ``staging`` (configured tier ``staging``) pointing at the dev
instance: a deploy to it is planned against a real Superset, and the tier — the thing
this test is about — comes from the configuration, as in production.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.browser.conftest import PASSWORD, SHOTS, product
from tests.chromium import chromium, sign_in
from tests.waiting import WAIT_MS

pytestmark = pytest.mark.browser

DEEP_LINK = (
    "/agent?objectType=dashboard&objectId=sales-overview&objectName=Sales%20Overview&envId=dev"
)


def _add_staging(path: Path, dev) -> None:
    """A staging environment on the dev instance, with its tier configured."""
    staging = [
        "",
        "[[environment]]",
        'id = "staging"',
        'name = "Staging"',
        f"url = {json.dumps(dev.url)}",
        f"username = {json.dumps(dev.username)}",
        f"password = {json.dumps(dev.password)}",
        'tier = "staging"',
        "",
    ]
    with path.open("a", encoding="utf-8") as fh:
        fh.write("\n".join(staging))


@pytest.fixture
def server(tmp_path, superset_sandbox):
    dev = superset_sandbox.env("dev")
    with product(
        tmp_path, superset_sandbox, add_environments=lambda path: _add_staging(path, dev)
    ) as srv:
        yield srv


def test_editing_a_deploys_target_from_staging_to_prod_asks_a_new_prod_confirmation(
    server,
) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with chromium(viewport={"width": 1280, "height": 1000}) as (context, expect):
        page = context.new_page()
        page.goto(server.url + DEEP_LINK)
        expect(page.get_by_label("Username")).to_be_visible(timeout=WAIT_MS)
        sign_in(page, "ops", PASSWORD)
        box = page.get_by_label("message")
        expect(box).to_be_visible(timeout=WAIT_MS)

        # the composer: Shift+Enter is a new line, Enter sends
        box.click()
        box.type("deploy this")
        page.keyboard.press("Shift+Enter")
        expect(box).to_have_value("deploy this\n")
        box.fill("deploy this to staging")
        page.keyboard.press("Enter")

        staging = page.locator(".q-card", has_text="Confirm a change in staging")
        expect(staging).to_be_visible(timeout=60_000)
        expect(staging).to_have_class(re.compile(r"border-amber-500"))
        expect(staging.get_by_text("target_env: staging")).to_be_visible()
        expect(staging).to_be_focused()  # the card takes the focus when it appears
        staging.get_by_text("Confirm a change in staging").scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "11-deploy-staging-card.png"))

        staging.get_by_role("button", name="Edit").click()
        form = staging.locator(".q-field", has_text="Target Env")
        expect(form).to_be_visible()
        # each field says what its argument is, under it (no hover needed)
        expect(form.get_by_text("Environment to deploy to")).to_be_visible()
        # Esc on the environment choice: the first closes its menu, the next the form
        form.click()
        expect(page.get_by_role("option").first).to_be_visible()
        page.keyboard.press("Escape")
        expect(page.get_by_role("option")).to_have_count(0)
        expect(form).to_be_visible()
        page.keyboard.press("Escape")
        expect(form).to_be_hidden()
        # nothing of the closed form stays on the page: a hover tooltip of the field under
        # the pointer once did (checked at once: it faded out only later)
        assert page.locator(".q-tooltip").count() == 0
        expect(page.get_by_text("Environment to deploy to")).to_be_hidden()
        page.screenshot(path=str(SHOTS / "11b-edit-form-closed-by-esc.png"))
        staging.get_by_role("button", name="Edit").click()
        expect(form).to_be_visible()
        form.click()
        page.get_by_role("option", name="Production (prod)").click()
        expect(page.get_by_role("option")).to_have_count(0)  # the menu has closed
        expect(form).to_contain_text("Production (prod)")
        page.get_by_role("button", name="Apply and confirm").scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "12-edit-form-target-prod.png"))
        page.get_by_role("button", name="Apply and confirm").click()

        prod = page.locator(".q-card", has_text="Confirm a change in PRODUCTION")
        expect(prod).to_be_visible(timeout=60_000)
        expect(prod).to_have_class(re.compile(r"border-red-500"))
        expect(prod.get_by_text("target_env: prod")).to_be_visible()
        expect(page.get_by_text("Confirm a change in staging")).to_be_hidden()
        prod.get_by_text("Confirm a change in PRODUCTION").scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "13-new-prod-confirmation.png"))

        # cancel it with a reason: the agent acknowledges it in one sentence
        # (the reason is typed on the card; Cancel itself takes one click)
        page.get_by_label("Reason for cancelling (optional)").fill("only checking the prod card")
        prod.get_by_role("button", name="Cancel", exact=True).click()
        # … naming the call as edited (to prod), not as first proposed
        answer = page.get_by_text(re.compile(r"Cancelled — .* to prod: only checking the prod"))
        expect(answer.first).to_be_visible(timeout=WAIT_MS)
        expect(prod).to_be_hidden()
        expect(box).to_be_focused()  # back to the message box after the card
        page.screenshot(path=str(SHOTS / "14-cancelled-with-reason.png"))

        # the conversation is in the drawer
        page.get_by_role("button", name="Conversations").click()
        drawer = page.locator(".q-drawer")
        expect(drawer.get_by_text("deploy this to staging")).to_be_visible(timeout=WAIT_MS)
        page.screenshot(path=str(SHOTS / "15-conversation-drawer.png"))

        # the Russian page: the same form, each field labelled and explained in Russian
        page.goto(server.url + DEEP_LINK + "&lang=ru")
        box = page.get_by_label("message")
        expect(box).to_be_visible(timeout=WAIT_MS)
        box.fill("разверни это в staging")
        page.keyboard.press("Enter")
        card = page.locator(".q-card", has_text="Подтвердите изменение в staging")
        expect(card).to_be_visible(timeout=60_000)
        card.get_by_role("button", name="Изменить").click()
        field = card.locator(".q-field", has_text="Куда *")  # ("Откуда" holds "куда")
        expect(field).to_be_visible()
        expect(field.get_by_text("Окружение, в которое развернуть")).to_be_visible()
        expect(card.get_by_text("Environment to deploy to")).to_have_count(0)
        page.get_by_role("button", name="Применить и подтвердить").scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "16-edit-form-in-russian.png"))
