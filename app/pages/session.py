"""The signed-in user of the pages: a server-side session keyed by the browser id.

Nothing secret is stored in the browser or in NiceGUI's page storage on disk: the
``session`` cookie (signed with the storage secret) carries NiceGUI's random browser id,
and :mod:`app.store.page_sessions` maps a hash of that id to the user. Page storage
(``app.storage.user``) keeps only ``lang`` and ``conv_id``.

* Sign-in (no session fixation): the login form checks the password and the throttle, then
  sends the browser to ``/login/complete?ticket=…``, which spends the one-time ticket,
  gives the browser a **new** id and opens the session for that id only. A browser id
  planted before sign-in stays signed out.
* Sign-out ends the session at once; the next ``/login`` gives the browser a new id.
* Every page load checks the user is still active with the session's role and the token
  stamp it signed in under (:meth:`app.auth.AuthGate.ensure_active`: a revoked user is
  out; a change of credentials ends the session); the page's model gets a fresh token that
  lives only in memory (never in the storage file on disk).

The functions take the app's auth gate (its database and settings with it): the page
functions hand it in from the installed parts.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote, urlencode

from nicegui import app, run, ui
from starlette.requests import Request
from starlette.responses import RedirectResponse

from app.auth import AuthGate, Principal, authenticate
from app.auth.throttle import begin_login, login_failed, login_succeeded
from app.errors import AuthError
from app.i18n import pick_language
from app.pages.links import is_local_path
from app.store import page_sessions
from app.store.db import Database
from app.text import is_valid_unicode

log = logging.getLogger("ss_tools.pages")
COMPLETE_PATH = "/login/complete"
SESSION_KEYS = ("conv_id",)


@dataclass(frozen=True)
class SessionUser:
    username: str
    role: str
    token: str  # issued for this page visit, kept in memory only
    source: Literal["local", "external"] = "local"
    stamp: str | None = None  # the token stamp the session was opened under

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"

    @property
    def principal(self) -> Principal:
        return Principal(
            user_id=self.username, role=self.role, source=self.source, stamp=self.stamp
        )


@dataclass(frozen=True)
class SignIn:
    outcome: Literal["ok", "bad", "throttled"]
    next_url: str = ""
    retry_after_s: int = 0


def browser_id(request: Request | None = None) -> str | None:
    """NiceGUI's browser id of this request (or of the page being served)."""
    if request is not None:
        value = request.session.get("id") if "session" in request.scope else None
    else:
        value = app.storage.browser.get("id")
    return str(value) if value else None


def _lookup(auth: AuthGate, bid: str) -> Principal | None:
    """Blocking: the live session's principal, ending it when its user was disabled,
    deleted or re-roled."""
    with auth.db.session() as db:
        row = page_sessions.find_session(db, browser_id=bid)
        if row is None or not page_sessions.is_live(row):
            return None
        principal = Principal(user_id=row.username, role=row.role, stamp=row.stamp)
    try:
        return auth.ensure_active(principal)
    except AuthError as exc:
        log.info("page session of %s ended: %s", principal.user_id, exc.message)
        _end(auth.db, bid)
        return None


def user_for(auth: AuthGate, bid: str | None) -> SessionUser | None:
    """Blocking: the signed-in user of this browser id, or None."""
    principal = _lookup(auth, bid) if bid else None
    if principal is None:
        return None
    token, _ = auth.issue(username=principal.user_id, role=principal.role, stamp=principal.stamp)
    return SessionUser(
        username=principal.user_id, role=principal.role, token=token, stamp=principal.stamp
    )


def current_user(auth: AuthGate) -> SessionUser | None:
    """The signed-in user of the page being built, or None (one indexed lookup)."""
    return user_for(auth, browser_id())


def _check_credentials(
    auth: AuthGate, username: str, password: str, client: str | None
) -> SignIn | Principal:
    gate = begin_login(auth, username, client)  # counted before the password check
    if not gate.allowed:
        return SignIn("throttled", retry_after_s=gate.retry_after_s)
    with auth.db.session() as db:
        principal = authenticate(
            db, username=username, password=password, scrypt_n=auth.settings.scrypt_n
        )
    if principal is None:
        login_failed(auth, username, client, gate)
        return SignIn("bad")
    login_succeeded(auth, username, client)
    return principal


def _ticket(db: Database, principal: Principal, bid: str | None) -> str:
    with db.session() as s:
        return page_sessions.create_ticket(
            s,
            username=principal.user_id,
            role=principal.role,
            browser_id=bid,
            now=None,
            stamp=principal.stamp,
        )


async def sign_in(
    auth: AuthGate,
    username: str,
    password: str,
    *,
    client: str | None,
    bid: str | None,
    target: str,
) -> SignIn:
    """Check the throttle and the credentials (off the event loop). On success the
    browser must follow ``next_url`` to finish signing in (a new browser id)."""
    name = username.strip()
    if not is_valid_unicode(name) or not is_valid_unicode(password):
        return SignIn("bad")
    checked = await run.io_bound(_check_credentials, auth, name, password, client)
    if isinstance(checked, SignIn):
        return checked
    if checked is None:  # the app is shutting down: nothing was checked
        return SignIn("bad")
    ticket = await run.io_bound(_ticket, auth.db, checked, bid)
    return SignIn("ok", COMPLETE_PATH + "?" + urlencode({"ticket": ticket, "next": target}))


async def complete_sign_in(auth: AuthGate, request: Request) -> RedirectResponse:
    """``GET /login/complete?ticket=…&next=…``: spend the ticket, rotate the browser id,
    open the session for the new id."""
    target = safe_next(request.query_params.get("next"))
    ticket = request.query_params.get("ticket") or ""
    old = browser_id(request)
    redeemed = await run.io_bound(_redeem, auth.db, ticket, old) if ticket else None
    if redeemed is None:
        return RedirectResponse(login_url(target), status_code=303)
    new = str(uuid.uuid4())
    request.session.clear()
    request.session["id"] = new  # the cookie NiceGUI signs: a fresh browser id
    await run.io_bound(_open, auth, old, new, *redeemed)
    return RedirectResponse(target, status_code=303)


def _redeem(db: Database, ticket: str, bid: str | None) -> tuple[str, str, str | None] | None:
    with db.session() as s:
        return page_sessions.redeem_ticket(s, ticket=ticket, browser_id=bid)


def _open(
    auth: AuthGate, old: str | None, new: str, username: str, role: str, stamp: str | None
) -> None:
    with auth.db.session() as db:
        if old:
            page_sessions.end_session(db, browser_id=old)
        page_sessions.open_session(
            db,
            browser_id=new,
            username=username,
            role=role,
            ttl_s=auth.settings.jwt_ttl_s,
            stamp=stamp,
        )


def _end(db: Database, bid: str) -> None:
    with db.session() as s:
        page_sessions.end_session(s, browser_id=bid)


def sign_out(auth: AuthGate) -> None:
    """End this browser's session at once (its id is worthless from now on); the next
    /login gives the browser a new id."""
    bid = browser_id()
    if bid:
        _end(auth.db, bid)
    for key in SESSION_KEYS:
        app.storage.user.pop(key, None)


def _signed_in(auth: AuthGate, bid: str | None) -> bool:
    return bid is not None and _lookup(auth, bid) is not None


def watch(auth: AuthGate, request: Request) -> ui.timer:
    """A page timer (every ``revocation_cache_s``, at least 0.5 s): once this browser's
    session has ended — signed out elsewhere, or its user disabled, deleted or re-roled —
    the open page goes to /login. Call it at the end of a signed-in page's build: a
    timer lets NiceGUI send the page as soon as the browser connects."""
    bid = browser_id(request)
    back = login_url(request_target(request))

    async def check() -> None:
        signed_in = await run.io_bound(_signed_in, auth, bid)  # None while the app stops
        if signed_in is False:
            timer.deactivate()
            ui.navigate.to(back)

    timer = ui.timer(max(0.5, auth.settings.revocation_cache_s), check)
    return timer


def needs_new_id(db: Database, bid: str | None) -> bool:
    """Blocking: whether this browser id belonged to a session that has ended."""
    if not bid:
        return False
    with db.session() as s:
        row = page_sessions.find_session(s, browser_id=bid)
    return row is not None and not page_sessions.is_live(row)


def rotate_browser_id(request: Request) -> None:
    request.session.clear()
    request.session["id"] = str(uuid.uuid4())


def page_language(request: Request, lang: str | None) -> str:
    """A page's language: the link's (``lang``), else the person's last choice (the page
    storage), else the browser's."""
    stored = app.storage.user.get("lang")
    return pick_language(lang, stored, request.headers.get("accept-language"))


def request_target(request: Request) -> str:
    """The path + query of this request (what /login?next= brings the user back to)."""
    query = request.url.query
    return request.url.path + (f"?{query}" if query else "")


def login_url(next_path: str) -> str:
    return "/login?next=" + quote(next_path, safe="") if is_local_path(next_path) else "/login"


def safe_next(next_path: str | None) -> str:
    return next_path if next_path and is_local_path(next_path) else "/agent"
