"""A scripted Superset for unit tests: an ``httpx.MockTransport`` handler that speaks the
auth protocol (login, refresh, CSRF + session cookie) and serves canned JSON per route."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from app.superset.client import SupersetClient
from app.superset.environments import Environment

PASSWORD = "s3cret-Pa55word"
Route = Callable[[httpx.Request], httpx.Response]


def make_env(**overrides: Any) -> Environment:
    data: dict[str, Any] = {
        "id": "dev",
        "url": "http://superset.test",
        "username": "admin",
        "password": PASSWORD,
        "tier": "dev",
    }
    data.update(overrides)
    return Environment(**data)


@dataclass
class FakeSuperset:
    """Routes are ``(METHOD, path regex) -> handler``; auth endpoints are built in."""

    routes: dict[tuple[str, str], Route | Any] = field(default_factory=dict)
    requests: list[httpx.Request] = field(default_factory=list)
    token_gen: int = 0
    valid_tokens: set[str] = field(default_factory=set)
    csrf: str = "csrf-token-1"
    login_status: int = 200

    def route(self, method: str, pattern: str, response: Route | Any) -> None:
        self.routes[(method, pattern)] = response

    def expire_tokens(self) -> None:
        self.valid_tokens.clear()

    def _issue(self) -> str:
        self.token_gen += 1
        token = f"access-{self.token_gen}"
        self.valid_tokens.add(token)
        return token

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.path
        if path == "/api/v1/security/login":
            body = json.loads(request.content)
            if self.login_status != 200 or body["password"] != PASSWORD:
                return httpx.Response(
                    self.login_status if self.login_status != 200 else 401,
                    json={"message": "Not authorized"},
                )
            return httpx.Response(
                200, json={"access_token": self._issue(), "refresh_token": "refresh-1"}
            )
        if path == "/api/v1/security/refresh":
            assert request.headers["authorization"] == "Bearer refresh-1"
            return httpx.Response(200, json={"access_token": self._issue()})
        auth = request.headers.get("authorization", "").removeprefix("Bearer ")
        if path != "/health" and auth not in self.valid_tokens:
            return httpx.Response(401, json={"msg": "Token has expired"})
        if path == "/api/v1/security/csrf_token/":
            return httpx.Response(
                200,
                json={"result": self.csrf},
                headers={"set-cookie": "session=sess-1; Path=/; HttpOnly"},
            )
        for (method, pattern), response in self.routes.items():
            if method == request.method and re.fullmatch(pattern, path):
                if callable(response):
                    return response(request)
                return httpx.Response(200, json=response)
        return httpx.Response(404, json={"message": "Not found"})

    def client(self, env: Environment | None = None, **kwargs: Any) -> SupersetClient:
        return SupersetClient(env or make_env(), transport=httpx.MockTransport(self), **kwargs)

    def paths(self) -> list[str]:
        return [f"{r.method} {r.url.path}" for r in self.requests]
