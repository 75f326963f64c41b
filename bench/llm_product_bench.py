"""The local model's routing THROUGH THE PRODUCT: ``python -m bench.llm_product_bench``.

Each request of a case file (default: ``bench/cases/llm_heldout.yaml``, requests written
before the tool narrowing was built and never tuned on) is one whole turn of the real
agent core with the local small LLM answering: the HTTP door's path (``agent_handler``:
the input check, the tool offer, the model, repairs, the guard, confirmations, audit),
with every tool's body replaced by a canned result (no Superset needed: what is measured
is where the product takes the request, not what Superset answers) and no preflight.

A case is **reached** when its expected tool ran (``tool_start``) or stopped at its
confirmation card (``confirm_required``). Also counted per turn: the mistake lines the
page would show (``error`` events: refusals), turns that hit the step cap, and turns that
ended on a model's mistake (the ``message``'s ``problem``), and turns that ran one tool
twice (the results a person then sees, one card each). The canned search behaves as the
real one does with one result: a page past the last shows the last and says which was
asked (``page_asked``). Prints one line per case, the totals, then one line of JSON.
``--expect NAME`` runs only the cases that expect that tool. A figure, not an assertion.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import yaml
from pydantic import SecretStr

from app.agent.handler import agent_handler
from app.events import decode_sse
from app.i18n import t
from app.parts import Parts, build_parts
from app.sandbox.local_model import MODEL_NAME
from app.settings import Settings
from app.store import users
from app.tools.catalog import TOOL_CATALOG
from bench.local_llm import model_url

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "bench/cases/llm_heldout.yaml"
USER = "bench"
#: a repeated call's plain answer (no words for its result)
PLAIN_REPEAT = (t("model_repeated_result", "en"), t("model_repeated_result", "ru"))
ENVIRONMENTS = "".join(
    f'[[environment]]\nid = "{env}"\nname = "{env}"\nurl = "http://127.0.0.1:9"\n'
    f'username = "admin"\npassword = "unused"\ntier = "{env}"\n\n'
    for env in ("dev", "staging", "prod")
)
CANNED: dict[str, Any] = {
    "list_environments": {"environments": [{"id": "dev"}, {"id": "staging"}, {"id": "prod"}]},
}


async def _search(args: Any, deps: Any) -> Any:
    """One dashboard, on page 0: a page past it shows page 0 (as the product's tool does)."""
    moved = {"page_asked": args.page} if args.page else {}
    found = [{"id": 7, "title": "Sales demo"}]
    return {"count": 1, "page": 0, **moved, "page_size": args.page_size, "dashboards": found}


def _tool(name: str) -> Any:
    async def canned(args: Any, deps: Any) -> Any:
        return CANNED.get(name, {"tool": name, "ok": True})

    return _search if name == "search_dashboards" else canned


async def _no_preflight(name: str, args: Any, deps: Any) -> None:
    return None


def bench_parts(base_url: str, data: Path, max_tokens: int) -> Parts:
    (data / "environments.toml").write_text(ENVIRONMENTS, encoding="utf-8")
    settings = Settings(
        dev=True,
        data_dir=data,
        database_url=f"sqlite:///{data / 'ss_tools.db'}",
        environments_file=data / "environments.toml",
        llm_provider="openai",
        llm_base_url=base_url,
        llm_model=MODEL_NAME,
        llm_api_key=SecretStr("none"),
        llm_timeout_s=900,
        llm_max_tokens=max_tokens,
    )
    tools = {name: _tool(name) for name in TOOL_CATALOG}
    parts = build_parts(settings, tools=tools, preflight=_no_preflight)
    with parts.db.session() as session:
        users.create_user(session, username=USER, role="admin", password_hash="!")
    return parts


async def one_turn(parts: Parts, case: dict[str, Any], env: str) -> dict[str, Any]:
    token = parts.auth.issue(username=USER, role="admin")[0]
    page = case.get("context")
    frames = [
        frame
        async for frame in agent_handler(
            case["say"], None, uuid.uuid4().hex, USER, token, env, page, core=parts.core
        )
    ]
    await parts.core.turns().drain()
    events = decode_sse("".join(frames))
    ran = [e["tool_name"] for e in events if e["type"] == "tool_start"]
    carded = [e["metadata"]["tool_name"] for e in events if e["type"] == "confirm_required"]
    problems = [e.get("problem") for e in events if e["type"] == "message" and e.get("problem")]
    answers = [str(e.get("text") or "") for e in events if e["type"] == "message"]
    return {
        "say": case["say"],
        "expect": case["expect"],
        "reached": case["expect"] in ran + carded,
        "tools": ran + carded,
        "lines": sum(1 for e in events if e["type"] in ("error", "permission_denied")),
        "problem": problems[-1] if problems else None,
        "twice": len(ran) != len(set(ran)),
        "args": [e["tool_args"] for e in events if e["type"] == "tool_start"],
        "answer": " ".join(answers[-1].split()) if answers else "",
    }


async def run(
    base_url: str | None, limit: int | None, path: Path, max_tokens: int, expect: str | None
) -> dict:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    cases = [c for c in data["cases"] if expect in (None, c["expect"])]
    cases = cases[:limit] if limit else cases
    env = data["defaults"]["selected_env"]
    results = []
    with model_url(base_url) as url:
        parts = bench_parts(url, Path(tempfile.mkdtemp(prefix="llm-product-bench-")), max_tokens)
        t0 = time.perf_counter()
        try:
            for case in cases:
                started = time.perf_counter()
                got = await one_turn(parts, case, case.get("selected_env", env))
                results.append(got)
                mark = "ok  " if got["reached"] else "MISS"
                print(
                    f"{mark} {time.perf_counter() - started:5.0f} s  {got['say']!r}: expected "
                    f"{got['expect']}, ran {got['tools']} lines={got['lines']} "
                    f"problem={got['problem']}"
                    + (f" args={got['args']}" if got["twice"] else "")
                    + f"\n        answer: {got['answer'][:120]!r}",
                    flush=True,
                )
            await parts.core.aclose()
        finally:
            parts.close()
    reached = sum(r["reached"] for r in results)
    summary = {
        "cases": len(results),
        "reached": reached,
        "share": round(reached / max(1, len(results)), 3),
        "max_lines": max((r["lines"] for r in results), default=0),
        "turns_with_2plus_lines": sum(r["lines"] >= 2 for r in results),
        "step_cap": sum(r["problem"] == "step_cap" for r in results),
        "ran_a_tool_twice": sum(r["twice"] for r in results),
        "ended_on_a_mistake": sum(r["problem"] is not None for r in results),
        "plain_repeat_answers": sum(r["answer"] in PLAIN_REPEAT for r in results),
        "seconds": round(time.perf_counter() - t0),
    }
    print(
        f"[llm] through the product: {reached}/{len(results)} reached their tool "
        f"({summary['share']:.0%}); most lines in a turn {summary['max_lines']}; "
        f"step cap {summary['step_cap']}; a tool run twice in {summary['ran_a_tool_twice']} "
        f"turns; answered only {PLAIN_REPEAT[0]!r} in {summary['plain_repeat_answers']}; "
        f"{summary['seconds']} s"
    )
    return summary


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default=None, help="a running llama-server's /v1 URL")
    parser.add_argument("--cases", type=int, default=None, help="the first N cases only")
    parser.add_argument("--file", type=Path, default=CASES, help="a case file (YAML)")
    parser.add_argument("--max-tokens", type=int, default=112, help="the model's answer cap")
    parser.add_argument("--expect", default=None, help="only the cases expecting this tool")
    args = parser.parse_args(argv)
    summary = run(args.base_url, args.cases, args.file, args.max_tokens, args.expect)
    print(json.dumps(asyncio.run(summary)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
