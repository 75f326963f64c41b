"""Straight to Superset, as a person would go there without the agent: their own sign-in
and requests (httpx), and the admin's view of users and the query history."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from app.sandbox import Sandbox
from app.sandbox.superset_rest import SupersetSession


@contextmanager
def as_person(
    sandbox: Sandbox, username: str, password: str, env: str = "dev"
) -> Iterator[httpx.Client]:
    """A signed-in client of ``username`` (bearer token and CSRF session)."""
    url = sandbox.env(env).url
    with httpx.Client(base_url=url, headers={"Accept": "application/json"}, timeout=60) as c:
        r = c.post(
            "/api/v1/security/login",
            json={"username": username, "password": password, "provider": "db", "refresh": True},
        )
        r.raise_for_status()
        c.headers["Authorization"] = f"Bearer {r.json()['access_token']}"
        c.headers["X-CSRFToken"] = c.get("/api/v1/security/csrf_token/").json()["result"]
        c.headers["Referer"] = url
        yield c


def sql(client: httpx.Client, text: str, database_id: int = 1) -> httpx.Response:
    return client.post(
        "/api/v1/sqllab/execute/",
        json={"database_id": database_id, "sql": text, "runAsync": False, "queryLimit": 100},
    )


def admin(sandbox: Sandbox, env: str = "dev") -> SupersetSession:
    inst = sandbox.env(env)
    return SupersetSession(inst.url, inst.username, inst.password)


def role_id(s: SupersetSession, name: str) -> int:
    rows = s.call("GET", "/api/v1/security/roles/search/", params={"q": "(page_size:100)"})
    return int(next(r["id"] for r in rows["result"] if r["name"] == name))


def ensure_user(sandbox: Sandbox, username: str, roles: list[str], env: str = "dev") -> str:
    """A Superset user with ``roles`` (made, or reset to active with a new password);
    returns the password."""
    password = secrets.token_urlsafe(12)
    with admin(sandbox, env) as s:
        ids = [role_id(s, r) for r in roles]
        users = s.call("GET", "/api/v1/security/users/", params={"q": "(page_size:100)"})
        found = next((u for u in users["result"] if u["username"] == username), None)
        body = {"active": True, "password": password, "roles": ids}
        if found is None:
            body |= {"username": username, "first_name": username.title(), "last_name": "Test",
                     "email": f"{username}@example.com"}  # fmt: skip
            s.call("POST", "/api/v1/security/users/", json=body)
        else:
            s.call("PUT", f"/api/v1/security/users/{found['id']}", json=body)
    return password


def set_active(sandbox: Sandbox, username: str, active: bool, env: str = "dev") -> None:
    with admin(sandbox, env) as s:
        users = s.call("GET", "/api/v1/security/users/", params={"q": "(page_size:100)"})
        found = next(u for u in users["result"] if u["username"] == username)
        s.call("PUT", f"/api/v1/security/users/{found['id']}", json={"active": active})


def queries(sandbox: Sandbox, env: str = "dev") -> list[dict[str, Any]]:
    """Superset's query history, newest first: id, sql, the user's first name, status."""
    q = ("(columns:!(id,sql,user.first_name,status),order_column:changed_on,"
         "order_direction:desc,page_size:100)")  # fmt: skip
    with admin(sandbox, env) as s:
        return list(s.call("GET", "/api/v1/query/", params={"q": q})["result"])


def chart_id(client: httpx.Client, name: str) -> int:
    charts = client.get("/api/v1/chart/", params={"q": "(columns:!(id,slice_name),page_size:100)"})
    return int(next(c["id"] for c in charts.json()["result"] if c["slice_name"] == name))
