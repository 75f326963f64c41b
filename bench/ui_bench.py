"""The /agent page: time to first render and server memory per connected page.

    python -m bench.ui_bench                  # N = 1, 10, 50 simulated clients
    python -m bench.ui_bench --clients 1,10 --renders 5

Starts ``python main.py`` on a free loopback port with a throwaway data dir, signs in once
with Chromium (Debian's /usr/bin/chromium via Playwright) and then measures:

* first render: Chromium ``goto(/agent deep link)`` until the chat is interactive (the
  connection label reads "Ready"), and the server's time to the page's HTML (httpx);
* memory: the server's RSS growth per connected page, with N simulated clients that each
  GET /agent (building the page on the server) and hold its socket.io connection open.

Prints the numbers, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from app.sandbox.processes import free_port

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DEEP_LINK = "/agent?objectType=dashboard&objectId=42&objectName=Sales&envId=prod"
USER, PASSWORD = "bench", "bench-password-1"
CLIENT_ID_RE = re.compile(r"'client_id': '([0-9a-f-]+)'")


_free_port = free_port


def _server_env(data_dir: Path, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SS_TOOLS_", "PYTEST_"))}
    env.update(
        SS_TOOLS_DEV="1",
        SS_TOOLS_SANDBOX="0",
        SS_TOOLS_DATA_DIR=str(data_dir),
        SS_TOOLS_ENVIRONMENTS_FILE=str(data_dir / "environments.toml"),
        SS_TOOLS_JWT_SECRET="bench-secret-0123456789abcdef0123456789abcdef",
        SS_TOOLS_HOST="127.0.0.1",
        SS_TOOLS_PORT=str(port),
        PYTHONUNBUFFERED="1",
    )
    return env


def start_server(data_dir: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    env = _server_env(data_dir, port)
    subprocess.run(
        [
            sys.executable,
            "main.py",
            "users",
            "add",
            USER,
            "--role",
            "admin",
            "--password",
            PASSWORD,
        ],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    log = (data_dir / "server.log").open("ab")
    proc = subprocess.Popen(
        [sys.executable, "main.py"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("server exited; see " + str(data_dir / "server.log"))
        try:
            if httpx.get(url + "/login", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    proc.terminate()
    raise RuntimeError("server did not start in 60 s")


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def browser_part(url: str, renders: int) -> tuple[dict[str, float], str]:
    """Sign in, measure first render in Chromium; returns numbers and the session cookie."""
    from playwright.sync_api import expect, sync_playwright

    times: list[float] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context()
        page = context.new_page()
        page.goto(url + "/login")
        page.get_by_label("Username").fill(USER)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        expect(page.get_by_text("Ready", exact=True)).to_be_visible(timeout=20_000)
        for _ in range(renders):
            fresh = context.new_page()
            start = time.perf_counter()
            fresh.goto(url + DEEP_LINK)
            expect(fresh.get_by_text("Ready", exact=True)).to_be_visible(timeout=20_000)
            expect(fresh.get_by_text("PRODUCTION", exact=True)).to_be_visible()
            times.append((time.perf_counter() - start) * 1000)
            fresh.close()
        cookie = "; ".join(f"{c['name']}={c['value']}" for c in context.cookies())
        browser.close()
    return {
        "first_render_ms_median": statistics.median(times),
        "first_render_ms_max": max(times),
    }, cookie


async def _connect(url: str, cookie: str, http: httpx.AsyncClient) -> Any:
    import socketio

    html = (await http.get(url + DEEP_LINK, headers={"Cookie": cookie})).text
    match = CLIENT_ID_RE.search(html)
    if match is None:
        raise RuntimeError("no client_id in /agent (not signed in?)")
    sio = socketio.AsyncClient(reconnection=False)
    tag = f"bench-{id(sio)}"
    query = f"client_id={match.group(1)}&tab_id={tag}&document_id={tag}&implicit_handshake=true"
    await sio.connect(
        f"{url}?{query}",
        socketio_path="/_nicegui_ws/socket.io",
        transports=["websocket"],
        headers={"Cookie": cookie},
        wait_timeout=10,
    )
    return sio


async def memory_part(url: str, cookie: str, pid: int, counts: list[int]) -> dict[str, float]:
    out: dict[str, float] = {}
    async with httpx.AsyncClient(timeout=30) as http:
        html_ms = []
        for _ in range(10):
            start = time.perf_counter()
            r = await http.get(url + DEEP_LINK, headers={"Cookie": cookie})
            r.raise_for_status()
            html_ms.append((time.perf_counter() - start) * 1000)
        out["page_html_ms_median"] = statistics.median(html_ms)
        warm = [await _connect(url, cookie, http) for _ in range(3)]  # warm caches and imports
        for sio in warm:
            await sio.disconnect()
        await asyncio.sleep(4)
        for n in counts:
            base = rss_mib(pid)
            clients = [await _connect(url, cookie, http) for _ in range(n)]
            await asyncio.sleep(2)
            held = rss_mib(pid)
            out[f"rss_base_mib_n{n}"] = base
            out[f"rss_mib_n{n}"] = held
            out[f"mib_per_page_n{n}"] = (held - base) / n
            for sio in clients:
                await sio.disconnect()
            await asyncio.sleep(5)  # NiceGUI drops the pages after its reconnect timeout
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ui_bench")
    parser.add_argument("--clients", default="1,10,50")
    parser.add_argument("--renders", type=int, default=5)
    ns = parser.parse_args(argv)
    counts = [int(c) for c in ns.clients.split(",") if c.strip()]
    data_dir = Path(tempfile.mkdtemp(prefix="ui-bench-"))
    proc, url = start_server(data_dir)
    try:
        result, cookie = browser_part(url, ns.renders)
        result.update(asyncio.run(memory_part(url, cookie, proc.pid, counts)))
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    print(
        f"/agent first render (Chromium, median of {ns.renders}): "
        f"{result['first_render_ms_median']:.0f} ms (max {result['first_render_ms_max']:.0f})"
    )
    print(
        f"/agent page HTML from the server (median of 10): {result['page_html_ms_median']:.1f} ms"
    )
    for n in counts:
        print(
            f"N={n:>3} connected pages: server RSS {result[f'rss_base_mib_n{n}']:.1f} → "
            f"{result[f'rss_mib_n{n}']:.1f} MiB, {result[f'mib_per_page_n{n}']:.2f} MiB/page"
        )
    print(json.dumps({k: round(v, 3) for k, v in result.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
