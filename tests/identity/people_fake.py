"""A scripted Superset with several users, for unit tests of acting as the person: each
user signs in with their own password, gets their own refresh and access tokens (a
refresh refused once they are deactivated), their own CSRF session cookie, and their own
answer from ``GET /api/v1/mine`` (``POST /api/v1/mine`` needs the CSRF token of their own
session). Every request is recorded with the user it acted as."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field

import httpx

from app.superset.environments import Environment


def person_env(**overrides: object) -> Environment:
    data: dict[str, object] = {"id": "dev", "url": "http://people.test", "identity": "person"}
    data.update(overrides)
    return Environment.model_validate(data)


@dataclass
class PeopleSuperset:
    passwords: dict[str, str] = field(
        default_factory=lambda: {"ann": "ann-pw-1", "bob": "bob-pw-1"}
    )
    inactive: set[str] = field(default_factory=set)
    refresh_of: dict[str, str] = field(default_factory=dict)  # refresh token -> user
    access_of: dict[str, str] = field(default_factory=dict)  # access token -> user
    csrf_of: dict[str, tuple[str, str]] = field(default_factory=dict)  # cookie -> (user, csrf)
    seen: list[tuple[str, str, str | None]] = field(default_factory=list)  # method path user
    providers: list[str] = field(default_factory=list)  # each sign-in's provider
    _n: itertools.count = field(default_factory=itertools.count)

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)

    def _user(self, request: httpx.Request) -> str | None:
        token = request.headers.get("authorization", "").removeprefix("Bearer ")
        user = self.access_of.get(token)
        return None if user is None or user in self.inactive else user

    def __call__(self, request: httpx.Request) -> httpx.Response:
        path, n = request.url.path, next(self._n)
        if path == "/api/v1/security/login":
            body = json.loads(request.content)
            user = body["username"]
            self.providers.append(body["provider"])
            self.seen.append((request.method, path, user))
            if self.passwords.get(user) != body["password"] or user in self.inactive:
                return httpx.Response(401, json={"message": "Not authorized"})
            refresh, access = f"refresh-{user}-{n}", f"access-{user}-{n}"
            self.refresh_of[refresh], self.access_of[access] = user, user
            return httpx.Response(200, json={"access_token": access, "refresh_token": refresh})
        if path == "/api/v1/security/refresh":
            token = request.headers.get("authorization", "").removeprefix("Bearer ")
            user = self.refresh_of.get(token)
            self.seen.append((request.method, path, user))
            if user is None or user in self.inactive:
                return httpx.Response(401, json={"msg": "Error loading the user"})
            access = f"access-{user}-{n}"
            self.access_of[access] = user
            return httpx.Response(200, json={"access_token": access})
        user = self._user(request)
        self.seen.append((request.method, path, user))
        if user is None:
            return httpx.Response(401, json={"msg": "Error loading the user"})
        if path == "/api/v1/me/":
            return httpx.Response(200, json={"result": {"username": user, "is_active": True}})
        if path == "/api/v1/security/csrf_token/":
            cookie = f"sess-{user}-{n}"
            self.csrf_of[cookie] = (user, f"csrf-{user}-{n}")
            return httpx.Response(
                200, json={"result": f"csrf-{user}-{n}"},
                headers={"set-cookie": f"session={cookie}; Path=/; HttpOnly"},
            )  # fmt: skip
        if path == "/api/v1/mine" and request.method == "GET":
            return httpx.Response(200, json={"result": {"user": user}})
        if path == "/api/v1/mine" and request.method == "POST":
            cookie = request.headers.get("cookie", "").removeprefix("session=")
            if self.csrf_of.get(cookie) != (user, request.headers.get("x-csrftoken")):
                return httpx.Response(400, json={"message": "The CSRF session token is missing."})
            return httpx.Response(200, json={"result": {"user": user, "cookie": cookie}})
        if path == "/api/v1/dashboard/":  # each person sees their own dashboard only
            mine = {"id": 7, "dashboard_title": f"{user}'s board", "slug": f"{user}-board"}
            return httpx.Response(200, json={"count": 1, "result": [mine]})
        if path == "/api/v1/database/":  # no database is granted to anyone here
            return httpx.Response(200, json={"count": 0, "result": []})
        if path == "/api/v1/forbidden":
            return httpx.Response(403, json={"message": "Forbidden"})
        return httpx.Response(404, json={"message": "Not found"})

    def acted_as(self) -> set[str | None]:
        return {user for _, path, user in self.seen if not path.startswith("/api/v1/security/")}
