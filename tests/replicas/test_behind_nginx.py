"""Two replicas behind a real nginx with the checked-in ``deploy/nginx.conf``: the API is
round-robin, a page and its socket stay on one replica (NiceGUI refuses a socket for a page
another replica rendered), an MCP session stays on the replica that holds it, and a turn's
event stream passes unbuffered."""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter
from typing import Any

import httpx
import pytest

from app.events import decode_sse
from tests.replicas.cluster import ReplicaSet
from tests.waiting import wait_until

pytestmark = pytest.mark.postgres
CLIENT_ID = re.compile(r"'client_id': '([0-9a-f-]{36})'")
SOCKET_PATH = "/_nicegui_ws/socket.io"


def socket_accepted(base_url: str, client_id: str, cookies: dict[str, str]) -> bool:
    """Does ``base_url`` accept the socket of page ``client_id``? Socket.IO over HTTP long
    polling, as a browser falls back to it: open the Engine.IO session (GET), connect
    (POST ``40``), read the answer (GET: ``40…`` accepted, ``44…`` refused), close. Three
    requests that must reach one replica (the session lives in its memory); the cookies
    go with each, as a browser sends them. An unknown session (a request that reached
    another replica) counts as refused."""
    query: dict[str, Any] = {
        "client_id": client_id,
        "next_message_id": 0,
        "implicit_handshake": "true",
        "tab_id": "t1",
        "document_id": uuid.uuid4().hex,
        "EIO": 4,
        "transport": "polling",
    }
    path = SOCKET_PATH + "/"
    with httpx.Client(base_url=base_url, cookies=cookies, timeout=10) as http:
        opened = http.get(path, params=query)
        assert opened.status_code == 200 and opened.text.startswith("0"), opened.text
        query["sid"] = json.loads(opened.text[1:])["sid"]
        if http.post(path, params=query, content="40").status_code != 200:
            return False
        answer = http.get(path, params=query)
        if answer.status_code != 200:
            return False
        packets = answer.text.split("\x1e")
        accepted = any(p.startswith("40") for p in packets)
        assert accepted or any(p.startswith("44") for p in packets), packets
        http.post(path, params=query, content="1")  # close
        return accepted


def open_page(url: str, client: httpx.Client) -> str:
    """GET the sign-in page like a browser; its NiceGUI client id."""
    r = client.get(url + "/login")
    assert r.status_code == 200
    found = CLIENT_ID.search(r.text)
    assert found, "no client id in the page"
    return found.group(1)


def test_the_api_is_round_robin_over_both_replicas(behind_nginx: ReplicaSet) -> None:
    assert len(behind_nginx.tags) == 2  # each replica names itself differently
    seen = Counter(
        httpx.get(behind_nginx.url + "/api/health", timeout=10).json()["replica"] for _ in range(8)
    )
    assert seen == Counter(dict.fromkeys(behind_nginx.tags, 4))  # strictly in turn


def test_the_page_path_sets_the_sticky_cookie_and_the_api_does_not(
    behind_nginx: ReplicaSet,
) -> None:
    page = httpx.get(behind_nginx.url + "/login", timeout=10)
    route = [c for c in page.headers.get_list("set-cookie") if c.startswith("ss_tools_route=")]
    assert len(route) == 1 and "HttpOnly" in route[0] and "SameSite=Lax" in route[0]
    again = httpx.get(
        behind_nginx.url + "/login", cookies={"ss_tools_route": "x"}, timeout=10
    ).headers.get_list("set-cookie")
    assert not [c for c in again if c.startswith("ss_tools_route=")]  # set once
    api = httpx.get(behind_nginx.url + "/api/health", timeout=10).headers.get_list("set-cookie")
    assert not [c for c in api if c.startswith("ss_tools_route=")]


def test_a_socket_for_a_page_of_another_replica_is_refused(
    behind_nginx: ReplicaSet,
) -> None:
    # what stickiness is for: NiceGUI's page state is one process's
    a, b = behind_nginx.servers
    with httpx.Client(timeout=10) as browser:
        client_id = open_page(a.url, browser)
        assert not socket_accepted(b.url, client_id, dict(browser.cookies))
        assert socket_accepted(a.url, client_id, dict(browser.cookies))


def test_a_browser_stays_on_the_replica_that_rendered_its_page(
    behind_nginx: ReplicaSet,
) -> None:
    homes: Counter[str] = Counter()
    for _ in range(12):  # fresh browsers: each gets its own route cookie
        with httpx.Client(timeout=10) as browser:
            client_id = open_page(behind_nginx.url, browser)
            cookies = dict(browser.cookies)
            assert "ss_tools_route" in cookies
            assert socket_accepted(behind_nginx.url, client_id, cookies)
            # which replica rendered it: the only one that knows the page
            for _ in range(3):  # and its next pages come from that replica too
                client_id = open_page(behind_nginx.url, browser)
                home = [
                    tag
                    for tag, server in behind_nginx.tags.items()
                    if socket_accepted(server.url, client_id, cookies)
                ]
                assert len(home) == 1
                homes[home[0]] += 1
    assert set(homes) == set(behind_nginx.tags)  # browsers spread over both replicas
    assert all(count % 3 == 0 for count in homes.values())  # a browser's pages: one replica


def mcp_headers(token: str, session: str | None = None) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    if session:
        headers |= {"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
    return headers


INITIALIZE: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "nginx-test", "version": "1"},
    },
}


def test_an_mcp_session_stays_on_the_replica_that_holds_it(behind_nginx: ReplicaSet) -> None:
    url = behind_nginx.url + "/mcp"
    for _ in range(4):  # four clients, four tokens
        token = behind_nginx.token()
        r = httpx.post(url, json=INITIALIZE, headers=mcp_headers(token), timeout=10)
        assert r.status_code == 200, r.text
        session = r.headers["mcp-session-id"]
        done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        r = httpx.post(url, json=done, headers=mcp_headers(token, session), timeout=10)
        assert r.status_code == 202, r.text
        for n in range(4):  # round-robin would send half of these to a replica without it
            listing = {"jsonrpc": "2.0", "id": 2 + n, "method": "tools/list"}
            r = httpx.post(url, json=listing, headers=mcp_headers(token, session), timeout=10)
            assert r.status_code == 200, r.text
            assert "show_capabilities" in r.text


def test_a_turn_streams_through_nginx(behind_nginx: ReplicaSet) -> None:
    token = behind_nginx.token()
    body = {"message": "what can you do?", "conv_id": f"lb-{uuid.uuid4().hex[:8]}"}
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.stream(
        "POST", behind_nginx.url + "/api/agent/stream", json=body, headers=headers, timeout=30
    ) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        assert "content-length" not in r.headers  # streamed, not buffered into one body
        text = "".join(r.iter_text())
    kinds = [e["type"] for e in decode_sse(text)]
    assert kinds[0] == "turn_start" and kinds[-1] == "done"


def test_a_rolling_restart_keeps_the_service_answering(behind_nginx: ReplicaSet) -> None:
    # the last test of the module: it restarts replica A (same port, a new tag)
    a, b = behind_nginx.servers
    b_tag = next(tag for tag, server in behind_nginx.tags.items() if server is b)
    with httpx.Client(timeout=10) as browser:
        open_page(behind_nginx.url, browser)  # a browser, sticky to one of them
        a.stop()  # SIGTERM: the replica shuts down
        try:
            answers = [httpx.get(behind_nginx.url + "/api/health", timeout=10) for _ in range(6)]
            assert {r.status_code for r in answers} == {200}
            assert {r.json()["replica"] for r in answers} == {b_tag}
            for _ in range(3):  # a POST before it reached a replica goes to the next one
                assert behind_nginx.token()
            # the browser's pages come from B now, and its sockets are accepted there
            client_id = open_page(behind_nginx.url, browser)
            assert socket_accepted(behind_nginx.url, client_id, dict(browser.cookies))
        finally:
            a.start()
    new_tag = httpx.get(a.url + "/api/health", timeout=10).json()["replica"]
    behind_nginx.tags = {b_tag: b, new_tag: a}
    seen: set[str] = set()  # nginx tries a failed server again after fail_timeout (10 s)

    def both_seen() -> bool:
        seen.add(httpx.get(behind_nginx.url + "/api/health", timeout=10).json()["replica"])
        return seen == {b_tag, new_tag}

    wait_until(both_seen, f"A never came back under its new tag: {seen}", every=0.2)
