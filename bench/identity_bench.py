"""A person's tool call against the service account's, on the same Superset.

    python -m bench.identity_bench            # starts a sandbox (dev), measures, stops it
    python -m bench.identity_bench -n 200

Two environments point at the same sandbox instance: ``svc`` (``identity = "service"``,
signed in as admin) and ``dev`` (``identity = "person"``), where the bench user has linked
the same admin account, so Superset does the same work for both. Each call is a door's
direct call of ``search_dashboards`` through the agent core (guard, tool node, audit),
with the sessions warm; calls alternate (service, person, …) so drift hits both. Also
measured: the first call right after a link (the session starts from the token the link's
sign-in issued), and a call whose access token is due, so it is refreshed first. Ends
with one JSON line; the goal is a warm ratio ≤ 1.10.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from app.agent.core import Caller, prepare_call
from app.agent.link_attempt import link_attempt
from app.parts import Parts, build_parts
from app.planner import OfflinePlanner
from app.policy import TOOL_CATALOG
from app.sandbox import Sandbox, seed_sandbox, start_sandbox
from app.settings import Settings
from app.store import users
from app.superset.http_session import REFRESH_AFTER_S
from app.superset.registry import load_environments

USER = "bench-person"


def _settings(data: Path) -> Settings:
    return Settings(
        dev=True, data_dir=data, database_url=f"sqlite:///{data / 'ss_tools.db'}",
        environments_file=data / "environments.toml", tool_timeout_s=60.0,
    )  # fmt: skip


def _parts(sandbox: Sandbox, data: Path) -> Parts:
    env = sandbox.env("dev")
    (data / "environments.toml").write_text(
        f'[[environment]]\nid = "svc"\nurl = "{env.url}"\nusername = "{env.username}"\n'
        f'password = "{env.password}"\ntier = "dev"\n\n'
        f'[[environment]]\nid = "dev"\nurl = "{env.url}"\nidentity = "person"\ntier = "dev"\n'
    )
    settings = _settings(data)
    parts = build_parts(
        settings, model=OfflinePlanner(catalog=TOOL_CATALOG),
        registry=load_environments(settings.environments_file),
    )  # fmt: skip
    with parts.db.session() as session:
        users.create_user(session, username=USER, role="admin", password_hash="!")
    return parts


async def _call(parts: Parts, caller: Caller, env_id: str) -> float:
    req = await prepare_call(
        core=parts.core, caller=caller, tool_name="search_dashboards",
        arguments={"env_id": env_id, "query": "sales"}, conv_id=uuid.uuid4().hex, uicontext=None,
    )  # fmt: skip
    started = time.perf_counter()
    ended = [e async for e in parts.core.run_call(req) if e.type == "tool_end"]
    took = (time.perf_counter() - started) * 1000
    if not ended or ended[0].status != "completed":
        raise RuntimeError(f"the {env_id} call did not complete: {ended}")
    return took


async def measure(sandbox: Sandbox, n: int) -> dict[str, Any]:
    data = Path(tempfile.mkdtemp(prefix="identity-bench-"))
    parts = _parts(sandbox, data)
    try:
        token = parts.auth.issue(username=USER, role="admin")[0]
        caller = Caller(token=token, channel="http")
        env = sandbox.env("dev")
        linked = await link_attempt(
            parts.auth, parts.registry, user_id=USER, env_id="dev", username=env.username,
            password=env.password, client="bench",
        )  # fmt: skip
        if not linked.ok:
            raise RuntimeError(f"the link was refused: {linked.reason}")
        first = await _call(parts, caller, "dev")
        for _ in range(5):  # warm both sessions and the core
            await _call(parts, caller, "svc")
            await _call(parts, caller, "dev")
        service: list[float] = []
        person: list[float] = []
        for _ in range(n):
            service.append(await _call(parts, caller, "svc"))
            person.append(await _call(parts, caller, "dev"))
        refreshed = []
        for _ in range(5):
            client = parts.registry.client("dev", USER)
            client._issued_at -= REFRESH_AFTER_S + 1  # the token is due: refreshed first
            refreshed.append(await _call(parts, caller, "dev"))
        p50_s, p50_p = statistics.median(service), statistics.median(person)
        return {
            "service_p50_ms": round(p50_s, 2),
            "person_p50_ms": round(p50_p, 2),
            "ratio_p50": round(p50_p / p50_s, 3),
            "first_call_after_link_ms": round(first, 2),
            "refresh_call_p50_ms": round(statistics.median(refreshed), 2),
            "calls_each": n,
        }
    finally:
        await parts.core.aclose()
        await parts.registry.aclose()
        parts.close()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.identity_bench")
    parser.add_argument("-n", type=int, default=100, help="warm calls of each kind")
    args = parser.parse_args(argv)
    with start_sandbox(("dev",), Path(tempfile.mkdtemp(prefix="identity-bench-sb-"))) as sandbox:
        seed_sandbox(sandbox, print, cache_templates=False)
        result = asyncio.run(measure(sandbox, args.n))
    for key, value in result.items():
        print(f"{key:>28}: {value}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
