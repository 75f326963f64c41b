"""The local model behind the product's prompt: ``python -m bench.llm_bench [--cases N]``.

Starts the local small LLM (``app.sandbox.llm``: built and cached once per machine) and
asks it what the product's model node asks, with the product's own prompt
(``app.agent.model_step.prompt_messages``) and tool schemas (``app.agent.graph``):

* **prompt tokens per call** (the server's ``usage``) for the no-context turn with every
  tool an admin is offered (22), twice: the second call shows what the server's prefix
  cache leaves to process;
* **routing accuracy** on the operator-request eval (the planner's eval file, its
  one-step cases): the first tool the model proposes against the expected one, in each
  case's page context and environment. A figure, not an assertion.

Prints numbers, then one line of JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import yaml
from langchain_core.messages import HumanMessage
from pydantic import SecretStr

from app.agent.core.turn_plan import plan_turn
from app.agent.graph import openai_tool_schema
from app.agent.model_step import prompt_messages
from app.agent.rules import default_policy
from app.context import UIContext
from app.facts import TurnFacts
from app.llm import get_chat_model
from app.sandbox.llm import MODEL_NAME, start_local_model, unavailable_reason
from app.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
EVAL_FILES = (ROOT / "tests/planner/planner_eval.yaml", ROOT / "tests/agent/planner_eval.yaml")
NO_CONTEXT_REQUEST = "what can you do?"


def _model(base_url: str, name: str) -> Any:
    settings = Settings(
        dev=True, llm_provider="openai", llm_base_url=base_url, llm_model=name,
        llm_api_key=SecretStr("none"), llm_timeout_s=600,
    )  # fmt: skip
    return get_chat_model(settings)


def _bound(model: Any, object_type: str | None, env: str | None) -> Any:
    policy = default_policy()
    names = plan_turn(policy, "admin", object_type, env, None)["allowed_tools"]
    return model.bind_tools([openai_tool_schema(policy.catalog[n]) for n in names]), names


def _prompt(text: str, env: str | None, envs: dict[str, str], page: dict[str, Any] | None) -> Any:
    ui = UIContext(**page) if page else None
    return prompt_messages([HumanMessage(text)], TurnFacts(env, envs), ui)


async def prompt_tokens(model: Any, envs: dict[str, str]) -> list[int]:
    bound, names = _bound(model, None, "dev")
    assert len(names) == 22, names
    counts = []
    for _ in range(2):
        reply = await bound.ainvoke(_prompt(NO_CONTEXT_REQUEST, "dev", envs, None))
        counts.append(int((reply.usage_metadata or {}).get("input_tokens", 0)))
    return counts


def one_step_cases(limit: int | None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    path = next(p for p in EVAL_FILES if p.exists())
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    cases = [c for c in data["cases"] if "say" in c and "expect" in c and "steps" not in c]
    return data["defaults"], spread(cases, limit)


def spread(cases: list[dict[str, Any]], limit: int | None) -> list[dict[str, Any]]:
    """At most ``limit`` cases, evenly spaced over the file (it is grouped by tool, so the
    first N would ask about a few tools only); all of them without a limit."""
    if not limit or limit >= len(cases):
        return cases
    return [cases[i * len(cases) // limit] for i in range(limit)]


async def routing(model: Any, limit: int | None) -> dict[str, Any]:
    defaults, cases = one_step_cases(limit)
    envs = dict(defaults["environments"])
    right = clean = 0
    misses = []
    # cases on the same kind of page are offered the same tools: asked one after another,
    # the server's prefix cache keeps the system text and the tools processed
    cases = sorted(cases, key=lambda c: str((c.get("context") or {}).get("objectType") or ""))
    for case in cases:
        page = case.get("context")
        env = case.get("selected_env", defaults["selected_env"])
        bound, _ = _bound(model, (page or {}).get("objectType"), env)
        try:
            reply = await bound.ainvoke(_prompt(case["say"], env, envs, page))
        except Exception as exc:  # the server's 500 on output it cannot parse, say
            misses.append((case["say"], case["expect"], type(exc).__name__))
            continue
        clean += 1
        got = reply.tool_calls[0]["name"] if reply.tool_calls else "answer"
        if got == case["expect"]:
            right += 1
        else:
            misses.append((case["say"], case["expect"], got))
    for say, expect, got in misses[:15]:
        print(f"  miss: {say!r}: expected {expect}, got {got}")
    return {"cases": len(cases), "right": right, "clean": clean}


async def run(
    limit: int | None, base_url: str | None = None, tokens_only: bool = False
) -> dict[str, Any]:
    server = None
    if base_url is None:
        reason = unavailable_reason()
        if reason:
            raise SystemExit(f"[llm] the local model cannot run here: {reason}")
        server = start_local_model(progress=lambda m: print(m, file=sys.stderr))
        base_url = server.base_url
    try:
        model = _model(base_url, MODEL_NAME)
        envs = {"dev": "dev", "staging": "staging", "prod": "prod"}
        t0 = time.perf_counter()
        first, second = await prompt_tokens(model, envs)
        print(f"[llm] prompt tokens, no-context turn, 22 tools: {first} (again: {second})")
        print(f"[llm] two calls took {time.perf_counter() - t0:.1f} s")
        if tokens_only:
            return {"prompt_tokens": first, "prompt_tokens_again": second}
        t0 = time.perf_counter()
        acc = await routing(model, limit)
        took = time.perf_counter() - t0
        share = acc["right"] / max(1, acc["cases"])
        print(
            f"[llm] routing: {acc['right']}/{acc['cases']} right ({share:.0%}), "
            f"{acc['clean']} answered without a server error, {took:.0f} s"
        )
        return {
            "prompt_tokens": first,
            "prompt_tokens_again": second,
            "routing_right": acc["right"],
            "routing_cases": acc["cases"],
            "routing_clean": acc["clean"],
        }
    finally:
        if server is not None:
            server.stop()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cases", type=int, default=None, help="at most this many eval cases, spread evenly"
    )
    parser.add_argument(
        "--base-url", default=None, help="a running llama-server's /v1 URL (else one is started)"
    )
    parser.add_argument(
        "--tokens-only", action="store_true", help="the prompt tokens only, no routing eval"
    )
    args = parser.parse_args(argv)
    result = asyncio.run(run(args.cases, args.base_url, args.tokens_only))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
