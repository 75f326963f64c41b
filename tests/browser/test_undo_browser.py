"""Undo on the page, in a real Chromium against the real product (a subprocess, the
offline planner answering) and the real Superset sandbox: a deploy's card says it can be
undone before it is confirmed; once it ran, its tool card offers "Undo"; one click asks
for the undo's own dangerous card (what it restores on prod, and that an undo cannot be
undone itself); confirmed, the undo runs and the deploy's card offers it no more. The
conversation reopened from the drawer shows no Undo either (it was taken). Screenshots go
to ``tests/screenshots/``."""

from __future__ import annotations

import re

import pytest

from components.process_steps import ACTIVE
from tests.browser.conftest import SHOTS
from tests.browser.steps import TURN_MS, ask, settled, signed_in
from tests.chromium import chromium

pytestmark = pytest.mark.browser
ACTIVE_STEP = re.compile(re.escape(ACTIVE))  # the highlighted step's classes


def test_a_deploy_is_undone_from_its_tool_card(server) -> None:
    with chromium(viewport={"width": 1280, "height": 1300}) as (context, expect):
        page = signed_in(context, expect, server.url + "/agent?envId=dev")

        # the deploy's card says, before it is confirmed, that it can be undone
        ask(page, "deploy dashboard sales-overview from dev to prod")
        undoable = page.get_by_text("Can be undone for 7 days")
        expect(undoable).to_be_visible(timeout=TURN_MS)
        page.screenshot(path=str(SHOTS / "31-undo-deploy-card-says-undoable.png"), full_page=True)
        page.get_by_role("button", name="Confirm").click()
        settled(page, expect)

        # its tool card offers Undo (the core's typed offer)
        deploy = page.locator(".tool-card", has_text="deploy_dashboard")
        undo = deploy.get_by_role("button", name="Undo")
        expect(undo).to_be_visible(timeout=TURN_MS)
        page.screenshot(path=str(SHOTS / "32-undo-button-on-the-tool-card.png"), full_page=True)

        # one click: the undo's own card, dangerous, on prod, with what it restores
        undo.click()
        expect(page.get_by_text("Dangerous action")).to_be_visible(timeout=TURN_MS)
        card = page.get_by_role("dialog")
        line = "Undo: Deploy dashboard sales-overview from dev to prod"
        expect(card.get_by_text(line)).to_be_visible()
        expect(card.get_by_text("This cannot be undone")).to_be_visible()
        restored = card.get_by_role("row", name=re.compile(r"^Sales Overview .* restore prod$"))
        expect(restored).to_be_visible()  # what it restores on prod, as a diff table
        page.screenshot(path=str(SHOTS / "33-undo-confirmation-card.png"), full_page=True)

        confirm = page.get_by_role("button", name="Confirm")
        expect(confirm).to_be_enabled(timeout=15_000)  # the countdown has run
        confirm.click()
        settled(page, expect)
        undone = page.locator(".tool-card", has_text="undo_change")
        expect(undone).to_contain_text("Done", timeout=TURN_MS)
        expect(undo).to_be_hidden()  # taken: the deploy's card offers it no more
        # no sentence follows a direct call: the step strip still comes to rest on the answer
        expect(page.get_by_text("Ready", exact=True)).to_be_visible()
        expect(page.get_by_text("Answer", exact=True)).to_have_class(ACTIVE_STEP)
        expect(page.get_by_text("Running tools", exact=True)).not_to_have_class(ACTIVE_STEP)
        page.screenshot(path=str(SHOTS / "34-undo-result.png"), full_page=True)
