"""Who a Superset session signs in as: the sources of its tokens (``SupersetSession``).

A session asks its :class:`Credentials` for an access token when it has none or its token
is old (:meth:`~Credentials.sign_in`, :meth:`~Credentials.renew`), and for the headers a
request carries (:meth:`~Credentials.headers`). One source per session, never another:

* :class:`ServiceCredentials` — the environment's service account (``identity =
  "service"``): ``/api/v1/security/login`` with its username and password, refreshed, and
  signed in again when Superset forgets the token;
* :class:`PersonCredentials` — a person's link (``identity = "person"``): only the
  refresh token Superset issued when they linked (``/api/v1/security/refresh``). A refused
  refresh (the account was deactivated, or its 30 days ran out) ends the link
  (``on_expired``) and is the refusal ``link_expired``: nothing signs in instead;
* :class:`AssertionCredentials` — a person on an SSO site (``identity = "assertion"``): no
  token at all; every request carries a fresh short-lived assertion (``X-Act-As``) that the
  site's security manager trusts. Superset refusing it is ``superset_denied``;
* :class:`NoCredentials` — a person environment asked without a person: every sign-in is
  the refusal ``account_not_linked``.

Secrets (password, tokens, assertions) never appear in a message, a log line or a repr.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from app.errors import SupersetAuthError, SupersetRefused
from app.superset.environments import Environment
from app.superset.error_responses import error_for, error_message

log = logging.getLogger(__name__)

LOGIN_PATH = "/api/v1/security/login"
REFRESH_PATH = "/api/v1/security/refresh"
#: Answers to a refresh that mean Superset no longer honours the token (not a fault)
REFRESH_REFUSED = (400, 401, 403, 422)


class Send(Protocol):
    """The session's raw request (no auth added; connection errors already typed)."""

    def __call__(self, method: str, path: str, **kwargs: Any) -> Awaitable[httpx.Response]: ...


@dataclass(frozen=True)
class Grant:
    """What a sign-in gave: an access token (None: requests carry headers instead) and a
    refresh token (None: none to keep)."""

    access: str | None
    refresh: str | None = None


class Credentials(ABC):
    """A session's source of identity (see the module docstring)."""

    kind = "none"
    #: the Superset username Superset sees (audit rows record it)
    account: str = ""
    #: a second sign-in when Superset answers 401 to a request (a token it forgot)
    sign_in_again_on_401 = True

    @property
    def generation(self) -> str | None:
        """Which link or mapping the session acts on (None: not a person's, or not yet
        known): a session of another generation is replaced."""
        return None

    def __init__(self, env: Environment) -> None:
        self.env = env

    def __repr__(self) -> str:
        return f"{type(self).__name__}(env={self.env.id!r}, account={self.account!r})"

    @abstractmethod
    async def sign_in(self, send: Send) -> Grant:
        """A new access token (or a grant without one, when requests carry headers)."""

    async def renew(self, send: Send, refresh: str | None) -> Grant:
        """A fresh access token for an old one (default: sign in again)."""
        return await self.sign_in(send)

    def headers(self) -> dict[str, str]:
        """Headers every request of the session carries besides the bearer token."""
        return {}

    def secrets(self) -> list[str]:
        return []

    def refused(self, response: httpx.Response, what: str) -> Exception:
        """The error for a 401 the session could not get past."""
        return error_for(
            response, env_id=self.env.id, what=what, secrets=self.secrets(), account=self.account
        )


class ServiceCredentials(Credentials):
    """The environment's service account (username and password from environments.toml)."""

    kind = "service"

    def __init__(self, env: Environment) -> None:
        super().__init__(env)
        self.account = env.username

    def secrets(self) -> list[str]:
        return [s for s in (self.env.password_value(),) if s]

    async def sign_in(self, send: Send) -> Grant:
        env = self.env
        if env.password is None:
            raise SupersetAuthError(
                f"Superset '{env.id}': no password available for user "
                f"{env.username!r}; check environments.toml",
                env_id=env.id,
            )
        body = {
            "username": env.username,
            "password": env.password_value(),
            "provider": env.login_provider,
            "refresh": True,
        }
        resp = await send("POST", LOGIN_PATH, json=body)
        if resp.status_code != 200:
            if resp.status_code in (400, 401, 403, 422):
                msg, _ = error_message(resp)
                raise SupersetAuthError(
                    f"Superset '{env.id}' refused the login of user "
                    f"{env.username!r} ({resp.status_code}): {msg}"[:300],
                    status_code=resp.status_code,
                    env_id=env.id,
                )
            raise error_for(resp, env_id=env.id, what="login", secrets=self.secrets())
        data = resp.json()
        if not data.get("access_token"):
            raise SupersetAuthError(f"Superset '{env.id}' login returned no access token")
        log.info("superset %s: logged in as %s", env.id, env.username)
        return Grant(data["access_token"], data.get("refresh_token"))

    async def renew(self, send: Send, refresh: str | None) -> Grant:
        if not refresh:
            return await self.sign_in(send)
        resp = await send("POST", REFRESH_PATH, headers={"Authorization": f"Bearer {refresh}"})
        if resp.status_code != 200:
            log.info("superset %s: refresh refused (%s), logging in", self.env.id, resp.status_code)
            return await self.sign_in(send)
        return Grant(resp.json().get("access_token"), refresh)


@dataclass(frozen=True)
class Linked:
    """A person's link as a session uses it: their Superset username, the refresh token
    (opened), and the link's generation (a newer link replaces the session)."""

    account: str
    refresh_token: str = field(repr=False)
    generation: str


#: the person's current link (raises the refusal when there is none)
LoadLink = Callable[[], Awaitable[Linked]]
#: the link of ``generation`` was refused by Superset (Superset's words)
Expired = Callable[[str, str], Awaitable[None]]


class PersonCredentials(Credentials):
    """A person's link: a refresh token, refreshed into access tokens. Built with the link
    the guard found (``linked``), or it loads the person's current one on first use."""

    kind = "person"

    def __init__(
        self,
        env: Environment,
        *,
        load: LoadLink,
        on_expired: Expired,
        linked: Linked | None = None,
    ) -> None:
        super().__init__(env)
        self._load = load
        self._on_expired = on_expired
        self._linked = linked
        self.account = linked.account if linked else ""

    @property
    def generation(self) -> str | None:
        return self._linked.generation if self._linked else None

    def secrets(self) -> list[str]:
        return [self._linked.refresh_token] if self._linked else []

    async def sign_in(self, send: Send) -> Grant:
        linked = self._linked
        if linked is None:
            linked = self._linked = await self._load()
            self.account = linked.account
        resp = await send(
            "POST", REFRESH_PATH, headers={"Authorization": f"Bearer {linked.refresh_token}"}
        )
        if resp.status_code in REFRESH_REFUSED:
            said, _ = error_message(resp)
            await self._on_expired(linked.generation, said)
            raise SupersetRefused(
                f"Superset '{self.env.id}' no longer honours the link of {linked.account!r} "
                f"({resp.status_code}: {said}); link the account again",
                code="link_expired", env_id=self.env.id, reason=said, account=linked.account,
                status_code=resp.status_code,
            )  # fmt: skip
        if resp.status_code != 200:
            raise error_for(resp, env_id=self.env.id, what="refresh", secrets=self.secrets())
        access = resp.json().get("access_token")
        if not access:
            raise SupersetAuthError(f"Superset '{self.env.id}' refresh returned no access token")
        return Grant(access, None)


class AssertionCredentials(Credentials):
    """A person on an SSO site: a fresh signed assertion on every request, no token.
    Built with the Superset username the guard found (``account``), or it loads the
    person's mapping on first use."""

    kind = "assertion"
    sign_in_again_on_401 = False

    def __init__(
        self,
        env: Environment,
        *,
        header: str,
        sign: Callable[[str, str], str],
        load: Callable[[], Awaitable[str]],
        account: str | None = None,
    ) -> None:
        super().__init__(env)
        self.account = account or ""
        self._header = header
        self._sign = sign
        self._load = load
        self._last = ""

    @property
    def generation(self) -> str | None:
        return f"assert:{self.account}" if self.account else None

    def secrets(self) -> list[str]:
        return [self._last] if self._last else []

    async def sign_in(self, send: Send) -> Grant:
        if not self.account:
            self.account = await self._load()
        return Grant(None)

    def headers(self) -> dict[str, str]:
        if not self.account:  # not signed in yet: nothing to assert
            return {}
        self._last = self._sign(self.account, self.env.audience)
        return {self._header: self._last}

    def refused(self, response: httpx.Response, what: str) -> Exception:
        said, _ = error_message(response)
        return SupersetRefused(
            f"Superset '{self.env.id}' refused to act as {self.account!r} ({what}): {said}",
            code="superset_denied", env_id=self.env.id, reason=said, account=self.account,
            status_code=response.status_code,
        )  # fmt: skip


class NoCredentials(Credentials):
    """A person environment asked without a person: nothing signs in."""

    def __init__(self, env: Environment, user_id: str | None = None) -> None:
        super().__init__(env)
        self.user_id = user_id

    async def sign_in(self, send: Send) -> Grant:
        who = f"user {self.user_id!r}" if self.user_id else "this call"
        raise SupersetRefused(
            f"environment '{self.env.id}' acts as each person and {who} has no linked "
            "Superset account there",
            code="account_not_linked", env_id=self.env.id,
        )  # fmt: skip
