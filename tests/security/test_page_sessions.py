"""Page sessions: a browser id planted before sign-in is worthless
after it, sign-out ends the session and rotates the id, and no token is kept in the page
storage on disk (which is private to the server)."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import httpx
import pytest
from nicegui import app as nicegui_app
from nicegui.testing import User

from app.store import page_sessions
from tests.chromium import chromium, sign_in
from tests.security.conftest import PASSWORD, Live, served
from tests.waiting import WAIT_MS, wait_until


def _as_attacker(cookie: str | None) -> httpx.AsyncClient:
    """Another browser holding only ``cookie`` (the planted or stolen ``session``)."""
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(nicegui_app),
        base_url="http://test",
        cookies={"session": cookie or ""},
    )


async def test_planted_browser_id_is_worthless_after_sign_in(
    user: User, core: Any, sign_in: Any
) -> None:
    await user.open("/login")
    planted = user.http_client.cookies.get("session")  # what an attacker set beforehand
    await sign_in("admin", target="/agent", username="victim-admin")
    assert user.http_client.cookies.get("session") != planted  # a new browser id
    async with _as_attacker(planted) as attacker:
        assert (await attacker.get("/api/audit.csv")).status_code == 403
        page = await attacker.get("/audit", follow_redirects=False)
        assert page.status_code in (302, 303, 307) and "/login" in page.headers["location"]
    assert (await user.http_client.get("/api/audit.csv")).status_code == 200  # the victim


async def test_sign_out_ends_the_session_and_rotates_the_browser_id(
    user: User, core: Any, sign_in: Any
) -> None:
    await sign_in("admin", username="leaving-admin")
    signed_in = user.http_client.cookies.get("session")
    user.find(marker="sign-out").click()
    await user.should_see(marker="sign-in", retries=30)
    assert user.http_client.cookies.get("session") != signed_in  # /login gave a new id
    async with _as_attacker(signed_in) as attacker:
        assert (await attacker.get("/api/audit.csv")).status_code == 403
    with served().db.session() as s:
        assert page_sessions.live_sessions(s, username="leaving-admin") == []


async def test_reused_sign_in_ticket_is_refused(user: User, core: Any, sign_in: Any) -> None:
    await sign_in("admin", username="ticket-admin")
    used = next(p for p in user.back_history if p.startswith("/login/complete"))
    async with _as_attacker(None) as attacker:
        replay = await attacker.get(used, follow_redirects=False)
        assert replay.status_code == 303 and replay.headers["location"].startswith("/login")
        assert (await attacker.get("/api/audit.csv")).status_code == 403


def _private(path: Path, mode: int) -> bool:
    return stat.S_IMODE(path.stat().st_mode) == mode


@pytest.mark.browser
def test_session_fixation_and_sign_out_in_chromium(tmp_path: Path) -> None:
    """The issue's probe with a real browser: an attacker's ``session`` cookie planted in
    the victim's Chromium before an admin signs in gives the attacker nothing; sign-out
    makes the victim's own cookie worthless too. The page storage holds no token and is
    private to the server (0700 folder, 0600 files, in the data dir)."""
    live = Live(tmp_path)
    live.add("ops", "admin")
    with live.server as srv, chromium() as (context, expect):
        planted = httpx.get(srv.url + "/login", timeout=10).cookies["session"]
        context.add_cookies([{"name": "session", "value": planted, "url": srv.url}])
        page = context.new_page()
        page.goto(srv.url + "/login?next=%2Faudit")
        sign_in(page, "ops", PASSWORD)
        expect(page.get_by_text("Audit log")).to_be_visible(timeout=WAIT_MS)
        victim = next(c["value"] for c in context.cookies() if c["name"] == "session")
        assert victim != planted
        stolen = httpx.get(srv.url + "/api/audit.csv", cookies={"session": planted})
        assert stolen.status_code == 403
        own = httpx.get(srv.url + "/api/audit.csv", cookies={"session": victim})
        assert own.status_code == 200

        page.goto(srv.url + "/agent")  # the page stores its conversation id
        expect(page.get_by_label("message")).to_be_visible(timeout=WAIT_MS)
        check_page_storage(live.data / "pages")
        page.get_by_role("button", name="Sign out").click()
        expect(page.get_by_role("button", name="Sign in")).to_be_visible(timeout=WAIT_MS)
        after = next(c["value"] for c in context.cookies() if c["name"] == "session")
        assert after != victim
        old = httpx.get(srv.url + "/api/audit.csv", cookies={"session": victim})
        assert old.status_code == 403


def check_page_storage(storage: Path) -> None:
    """NiceGUI's page storage: in the data dir, private, and without any token."""
    files = wait_until(  # NiceGUI writes it in the background
        lambda: list(storage.glob("storage-user-*.json")), "no page storage written", every=0.1
    )
    assert files and _private(storage, 0o700)
    assert all(_private(f, 0o600) for f in files)
    assert not any("eyJ" in f.read_text() or "token" in f.read_text() for f in files)


@pytest.mark.browser
def test_disabled_user_loses_the_open_page_in_chromium(tmp_path: Path) -> None:
    """``main.py users disable`` while the page is open: within seconds the open page
    leaves for /login by itself (its session watch), and the old page can do nothing."""
    live = Live(tmp_path)
    live.add("carol", "analyst")
    with live.server as srv, chromium() as (context, expect):
        page = context.new_page()
        page.goto(srv.url + "/login")
        sign_in(page, "carol", PASSWORD)
        box = page.get_by_label("message")
        expect(box).to_be_visible(timeout=WAIT_MS)
        live.users("disable", "carol")  # SS_TOOLS_REVOCATION_CACHE_S=1 on this server
        expect(page.get_by_role("button", name="Sign in")).to_be_visible(timeout=WAIT_MS)
        assert "/login" in page.url
        page.goto(srv.url + "/agent")  # the old session gives nothing back
        expect(page.get_by_role("button", name="Sign in")).to_be_visible(timeout=WAIT_MS)
