"""A Superset 6.1 security manager that trusts ss-tools' signed assertions (``X-Act-As``).

For sites whose people sign in through SSO (OAuth, OIDC, a remote user): they have no
Superset password to link, so ss-tools (environments.toml ``identity = "assertion"``)
sends, on every request it makes for a person, a short-lived RS256 JWT naming that
person's Superset username. This manager accepts such a request as that user, and only
when:

* the signature verifies with ss-tools' public key (``SS_TOOLS_ACT_AS_PUBLIC_KEY``: the
  PEM text, or ``SS_TOOLS_ACT_AS_JWKS_URL``: ss-tools' ``/api/superset/jwks.json``);
* ``iss`` and ``aud`` are the ones configured (``SS_TOOLS_ACT_AS_ISSUER``, default
  ``ss-tools``; ``SS_TOOLS_ACT_AS_AUDIENCE``, e.g. this site's URL);
* it has not expired, and it lived at most ``SS_TOOLS_ACT_AS_MAX_TTL`` seconds (300);
* ``sub`` names an existing, active user;
* that user holds none of the roles the site refuses (``SS_TOOLS_ACT_AS_REFUSED_ROLES``,
  default ``["Admin"]``): an assertion never acts as an administrator.

Anything else — no header, a bad or expired assertion, an unknown or inactive user, a
refused role — is not a user: Superset then answers as it does to any unauthenticated API
request (401), and its own sign-in (the session, a JWT) keeps working as before. Every
permission, dataset grant and row-level rule of the user applies, as when they sign in.

Install: copy this file next to ``superset_config.py`` and add the lines of
``superset_config_act_as.py`` (beside this file) to it. Needs PyJWT and cryptography,
which Superset already depends on.
"""

from __future__ import annotations

import logging
from typing import Any

import jwt
from flask import current_app, g
from superset.security import SupersetSecurityManager

log = logging.getLogger("ss_tools.act_as")
HEADER_DEFAULT = "X-Act-As"



class ActAsSecurityManager(SupersetSecurityManager):
    """``request_loader`` accepts an ss-tools assertion (see the module docstring), and
    otherwise defers to Superset's own (guest tokens, when embedding is on)."""

    _jwks: Any = None

    def request_loader(self, request: Any) -> Any:
        conf = current_app.config
        raw = request.headers.get(conf.get("SS_TOOLS_ACT_AS_HEADER", HEADER_DEFAULT))
        if not raw:
            return super().request_loader(request)
        user = self._asserted_user(raw, conf)
        if user is not None:
            g.user = user
        return user

    def _key(self, raw: str, conf: Any) -> Any:
        pem = conf.get("SS_TOOLS_ACT_AS_PUBLIC_KEY")
        if pem:
            return pem
        url = conf.get("SS_TOOLS_ACT_AS_JWKS_URL")
        if not url:
            raise jwt.InvalidKeyError("no SS_TOOLS_ACT_AS_PUBLIC_KEY or _JWKS_URL configured")
        if ActAsSecurityManager._jwks is None:
            ActAsSecurityManager._jwks = jwt.PyJWKClient(url, cache_keys=True, lifespan=300)
        return ActAsSecurityManager._jwks.get_signing_key_from_jwt(raw).key

    def _asserted_user(self, raw: str, conf: Any) -> Any:
        try:
            claims = jwt.decode(
                raw,
                self._key(raw, conf),
                algorithms=["RS256"],
                audience=conf["SS_TOOLS_ACT_AS_AUDIENCE"],
                issuer=conf.get("SS_TOOLS_ACT_AS_ISSUER", "ss-tools"),
                options={"require": ["exp", "iat", "iss", "aud", "sub"]},
                leeway=conf.get("SS_TOOLS_ACT_AS_LEEWAY", 10),
            )
        except (jwt.PyJWTError, KeyError) as exc:
            log.warning("act-as assertion refused: %s", type(exc).__name__)
            return None
        if int(claims["exp"]) - int(claims["iat"]) > conf.get("SS_TOOLS_ACT_AS_MAX_TTL", 300):
            log.warning("act-as assertion refused: it lives longer than allowed")
            return None
        user = self.find_user(username=str(claims["sub"]))
        if user is None or not user.is_active:
            log.warning("act-as assertion refused: no active user %r", claims["sub"])
            return None
        refused = set(conf.get("SS_TOOLS_ACT_AS_REFUSED_ROLES", ["Admin"]))
        if any(role.name in refused for role in user.roles):
            log.warning("act-as assertion refused: %r holds a refused role", claims["sub"])
            return None
        return user
