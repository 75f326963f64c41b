"""Connecting a Superset account, in a real Chromium against the real product (a
subprocess, the offline planner answering) and the real sandbox, whose dev is also served
as ``people``, an environment that acts as each person: a request there ends with
"Connect your Superset account (people)"; the form's password field is a password field;
a wrong password is said in the form; alice's then connects, and the same request answers
what alice sees (her two dashboards, not the four the admin sees). Screenshots go to
``tests/screenshots/``."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.sandbox.second_person import person_password
from tests.browser.conftest import SHOTS, product
from tests.browser.steps import TURN_MS, ask, settled, signed_in
from tests.chromium import chromium

pytestmark = pytest.mark.browser


@pytest.fixture
def server(tmp_path, superset_sandbox):
    url = superset_sandbox.env("dev").url

    def people(envs_file: Path) -> None:
        with envs_file.open("a") as f:
            f.write(f'\n[[environment]]\nid = "people"\nname = "People"\nurl = "{url}"\n'
                    'identity = "person"\ntier = "dev"\n')  # fmt: skip

    with product(tmp_path, superset_sandbox, add_environments=people) as srv:
        yield srv


def test_connecting_a_superset_account_from_the_offer(server, superset_sandbox) -> None:
    alice = person_password(superset_sandbox.paths)
    with chromium(viewport={"width": 1280, "height": 1000}) as (context, expect):
        page = signed_in(context, expect, server.url + "/agent?envId=people")
        ask(page, "find dashboards in people")
        connect = page.get_by_role("button", name="Connect your Superset account (people)")
        expect(connect).to_be_visible(timeout=TURN_MS)
        settled(page, expect)
        page.screenshot(path=str(SHOTS / "41-link-offer.png"), full_page=True)

        connect.click()
        password = page.get_by_label("Superset password")
        expect(password).to_be_visible()
        expect(password).to_have_attribute("type", "password")  # never echoes
        page.get_by_label("Superset username").fill("alice")
        password.fill("not-" + alice)
        page.get_by_role("button", name="Connect", exact=True).click()
        expect(page.get_by_text("Not connected:")).to_be_visible(timeout=TURN_MS)
        expect(password).to_have_value("")  # emptied after the attempt
        password.fill(alice)
        page.screenshot(path=str(SHOTS / "42-link-form.png"), full_page=True)
        page.get_by_role("button", name="Connect", exact=True).click()
        expect(page.get_by_text("Connected as alice in people")).to_be_visible(timeout=TURN_MS)

        ask(page, "find dashboards in people")
        settled(page, expect)
        answer = page.locator(".q-message").last
        expect(answer).to_contain_text("Found 2 dashboards in people", timeout=TURN_MS)
        expect(page.get_by_text("Sales Overview").last).to_be_visible()
        expect(page.get_by_text("Marketing Funnel")).to_have_count(0)  # not hers to see
        page.screenshot(path=str(SHOTS / "43-link-as-alice.png"), full_page=True)
        assert alice not in page.content()
