"""Ask from inside Superset, in a real Chromium against the sandbox's two Superset 6.1
instances (each configured by ``app.sandbox`` with ``deploy/superset/ask_agent``, as a
site would; prod runs Talisman with Superset's default CSP) and the product:

* sign in to Superset, open a dashboard (by its slug): "Ask the agent" is there; its link
  names the dashboard's id (resolved through Superset's API), its title and the
  environment; a click opens /agent in a new tab, at our sign-in first, then back on the
  same link: the pill names the dashboard and the environment;
* on prod (CSP on, no violation): the same, and the PRODUCTION banner;
* Superset in Russian: «Спросить агента»; a dataset's explore page: a dataset context;
* a title with ``<script>``, quotes and 300 characters reaches our page as inert, cut text.

Screenshots of both sides go to ``tests/screenshots/37-…``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from app.sandbox.entry import point_entry
from app.sandbox.superset_rest import SupersetSession
from app.text import one_line
from tests.browser.conftest import PASSWORD, SHOTS, product
from tests.chromium import chromium, sign_in
from tests.sandbox_fixtures import sandbox_dashboard
from tests.server_proc import Server

pytestmark = [pytest.mark.browser, pytest.mark.superset]

ENTRY = "#ss-tools-ask-agent"
#: a Superset page (its bundle, then its charts' queries) on a loaded 2-core machine
SUPERSET_MS = 180_000
HOSTILE = '<script>window.__pwned=1</script>"\'<img src=x onerror="window.__pwned=2">'
HOSTILE_TITLE = HOSTILE + " " + "Q" * (300 - len(HOSTILE) - 1)


@pytest.fixture(scope="module")
def server(superset_sandbox: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with product(tmp_path_factory.mktemp("ask-from-superset"), superset_sandbox) as srv:
        point_entry({e.id: e.home for e in superset_sandbox.environments}, srv.url)
        yield srv


def superset_sign_in(page: Any, env: Any, tries: int = 3) -> None:
    """Superset's own sign-in form, until Superset has let the browser in.

    Seen under load: typed into before React took the form over, the fields came back
    empty; a submit pressed while the bundle was still starting was lost, and the page
    stayed on the form. So each try waits for the page to settle, checks what it typed,
    submits, and waits only for the navigation away from the form to *commit* (the welcome
    page's own bundle and charts are not this step's business); a page still on the form
    is tried again. Already signed in, ``/login/`` redirects away and nothing is typed.
    The page's later navigations (Superset pages) get the same patient deadline."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import expect

    def signed_in(url: str) -> bool:
        return not urlsplit(url).path.startswith("/login")

    page.set_default_navigation_timeout(SUPERSET_MS)
    for _ in range(tries):
        page.goto(env.url + "/login/", wait_until="commit")
        page.wait_for_load_state("networkidle", timeout=SUPERSET_MS)
        if signed_in(page.url):
            return
        username, password = page.get_by_label("Username"), page.get_by_label("Password")
        username.fill(env.username)
        password.fill(env.password)
        expect(username).to_have_value(env.username, timeout=SUPERSET_MS)
        expect(password).to_have_value(env.password, timeout=SUPERSET_MS)
        password.press("Enter")
        try:
            page.wait_for_url(signed_in, timeout=SUPERSET_MS // tries, wait_until="commit")
            return
        except PlaywrightTimeout:
            continue
    raise AssertionError(f"Superset at {env.url} kept its sign-in form after {tries} tries")


def superset_open(page: Any, env: Any, path: str, tries: int = 3) -> Any:
    """Signed in to Superset (:func:`superset_sign_in`), ``path`` of ``env`` opened; its
    response. Seen under heavy load: the sign-in left the form, yet the next page was the
    form again (the session not taken); then sign in and open it again."""
    for _ in range(tries):
        superset_sign_in(page, env)
        response = page.goto(env.url + path)
        if not urlsplit(page.url).path.startswith("/login"):
            return response
    raise AssertionError(f"Superset at {env.url} kept sending {path} to its sign-in form")


def dashboard_id(env: Any, slug: str) -> int:
    with SupersetSession(env.url, env.username, env.password) as ss:
        return int(ss.call("GET", f"/api/v1/dashboard/{slug}")["result"]["id"])


def link_params(page: Any) -> dict[str, str]:
    href = page.locator(ENTRY).get_attribute("href")
    return {k: v[0] for k, v in parse_qs(urlsplit(href).query).items()}


def open_entry(context: Any, page: Any) -> Any:
    """Click the entry; the new tab it opened."""
    with context.expect_page() as opened:
        page.locator(ENTRY).click()
    tab = opened.value
    tab.wait_for_load_state()
    return tab


def test_a_dashboards_entry_opens_the_agent_about_it_on_dev_and_on_prod(
    server: Server, superset_sandbox: Any
) -> None:
    dev, prod = superset_sandbox.env("dev"), superset_sandbox.env("prod")
    with chromium(viewport={"width": 1280, "height": 800}) as (context, expect):
        # dev: Superset without Talisman
        page = context.new_page()
        superset_open(page, dev, "/superset/dashboard/customer-health/")
        expect(page.locator(ENTRY)).to_have_text("Ask the agent", timeout=SUPERSET_MS)
        wanted = dashboard_id(dev, "customer-health")
        params = link_params(page)
        assert params == {
            "objectType": "dashboard",
            "objectId": str(wanted),  # the slug resolved to the id by Superset's API
            "objectName": "Customer Health",
            "envId": "dev",
        }
        assert page.locator(ENTRY).get_attribute("target") == "_blank"
        expect(page.locator("table").first).to_be_visible(timeout=SUPERSET_MS)  # a chart's data
        page.screenshot(path=str(SHOTS / "37-1-superset-dev-dashboard-entry.png"))

        agent = open_entry(context, page)  # our sign-in first, then back to the same link
        expect(agent.get_by_label("Username")).to_be_visible(timeout=30_000)
        sign_in(agent, "ops", PASSWORD)
        pill = f"Dashboard · Customer Health (#{wanted}) · dev"
        expect(agent.get_by_text(pill)).to_be_visible(timeout=30_000)
        assert parse_qs(urlsplit(agent.url).query)["objectName"] == ["Customer Health"]
        expect(agent.get_by_text("PRODUCTION", exact=True)).to_be_hidden()
        agent.screenshot(path=str(SHOTS / "37-2-agent-from-dev-dashboard.png"))
        agent.close()

        # prod: Superset with Talisman on and its default CSP; the entry runs by its nonce
        page = context.new_page()
        violations: list[str] = []
        page.on(
            "console", lambda m: violations.append(m.text) if "Content Security" in m.text else None
        )
        response = superset_open(page, prod, "/superset/dashboard/sales-overview/")
        policy = response.headers.get("content-security-policy", "")
        assert "script-src 'self' 'strict-dynamic' 'nonce-" in policy
        assert "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]
        expect(page.locator(ENTRY)).to_be_visible(timeout=SUPERSET_MS)
        wanted = dashboard_id(prod, "sales-overview")
        assert link_params(page)["envId"] == "prod"
        assert link_params(page)["objectId"] == str(wanted)
        expect(page.locator("table").first).to_be_visible(timeout=SUPERSET_MS)  # a chart's data
        page.screenshot(path=str(SHOTS / "37-3-superset-prod-dashboard-entry.png"))
        assert not [v for v in violations if "ask_agent" in v], violations

        agent = open_entry(context, page)  # signed in already: straight to the chat
        expect(agent.get_by_text(f"Dashboard · Sales Overview (#{wanted}) · prod")).to_be_visible(
            timeout=30_000
        )
        expect(agent.get_by_text("PRODUCTION", exact=True)).to_be_visible()
        agent.screenshot(path=str(SHOTS / "37-4-agent-from-prod-dashboard.png"))


def test_superset_in_russian_and_a_datasets_page(server: Server, superset_sandbox: Any) -> None:
    dev = superset_sandbox.env("dev")
    with SupersetSession(dev.url, dev.username, dev.password) as ss:
        rows = ss.list_all("dataset", ["id", "table_name"])
    sales = next(int(r["id"]) for r in rows if r["table_name"] == "sales")
    with chromium(viewport={"width": 1280, "height": 800}) as (context, expect):
        page = context.new_page()
        superset_sign_in(page, dev)
        # a dataset's explore page (Superset's language still English)
        page.goto(dev.url + f"/explore/?datasource_type=table&datasource_id={sales}")
        expect(page.locator(ENTRY)).to_be_visible(timeout=SUPERSET_MS)
        params = link_params(page)
        assert (params["objectType"], params["objectId"], params["objectName"]) == (
            "dataset",
            str(sales),
            "sales",
        )
        expect(page.get_by_text("main.sales").first).to_be_visible(timeout=SUPERSET_MS)
        page.screenshot(path=str(SHOTS / "37-7-superset-dataset-explore-entry.png"))
        # Superset's own language menu: Russian
        page.goto(dev.url + "/lang/ru")
        page.goto(dev.url + "/superset/dashboard/sales-overview/")
        expect(page.locator(ENTRY)).to_have_text("Спросить агента", timeout=SUPERSET_MS)
        expect(page.locator("table").first).to_be_visible(timeout=SUPERSET_MS)  # a chart's data
        page.screenshot(path=str(SHOTS / "37-5-superset-russian-entry.png"))
        # a page about no single object has no entry
        page.goto(dev.url + "/dashboard/list/")
        expect(page.locator(ENTRY)).to_have_count(0, timeout=10_000)


def test_a_hostile_title_reaches_the_agent_as_inert_cut_text(
    server: Server, superset_sandbox: Any
) -> None:
    dev = superset_sandbox.env("dev")
    with (
        sandbox_dashboard(superset_sandbox, "dev", HOSTILE_TITLE, "hostile") as hostile,
        chromium(viewport={"width": 1280, "height": 800}) as (context, expect),
    ):
        dialogs: list[str] = []
        context.on(
            "page", lambda p: p.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        )
        page = context.new_page()
        superset_open(page, dev, f"/superset/dashboard/{hostile}/")
        expect(page.locator(ENTRY)).to_be_visible(timeout=SUPERSET_MS)
        sent = link_params(page)["objectName"]
        assert sent == HOSTILE_TITLE[:256]  # cut by the entry to the product's limit
        assert page.evaluate("window.__pwned") is None

        agent = open_entry(context, page)
        sign_in(agent, "ops", PASSWORD)
        name = one_line(HOSTILE_TITLE)[:256]
        pill = agent.get_by_text(f"Dashboard · {name} (#{hostile}) · dev", exact=True)
        expect(pill).to_be_visible(timeout=30_000)  # the title as text, markup and all
        assert agent.evaluate("window.__pwned") is None  # no script ran, no image's handler
        assert agent.locator("img[src=x]").count() == 0
        assert dialogs == []
        agent.screenshot(path=str(SHOTS / "37-6-agent-hostile-title.png"))

        # an id that is not an id: no context at all (the environment stays)
        agent.goto(server.url + "/agent?objectType=dashboard&objectId=%3Cscript%3E&envId=dev")
        expect(agent.get_by_text("No context selected")).to_be_visible(timeout=30_000)
