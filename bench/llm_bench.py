"""The local model behind the product's prompt: ``python -m bench.llm_bench [--cases N]``.

Starts the local small LLM (``app.sandbox.local_model``: built and cached once per machine) and
asks it what the product's model node asks, with the product's own prompt
(``app.agent.prompt.prompt_messages``), tool schemas (``app.agent.prompt``) and tool
offer (``app.agent.tool_offer``: the allowed tools narrowed by the planner's ranking to
``--top-k``, the others named in the turn's facts; ``--top-k 0``
offers every allowed tool, as the product did before the narrowing):

* **prompt tokens per call** (the server's ``usage``) for the no-context turn ("what can
  you do?", an admin on dev) as the product sends it, twice: the second call shows what
  the server's prefix cache leaves to process; and, for reference, the same turn offered
  every tool (22: the fallback of a request the ranking cannot place);
* **routing accuracy** on the operator-request eval (the planner's eval file, its
  one-step cases): the first tool the model proposes against the expected one, in each
  case's page context and environment, on the first try and after the product's one
  repair try (``ask_model``: a reply the server could not read is asked again, offered
  every allowed tool). The first call of a turn with a narrowed offer asks for a call
  (``tool_choice: required``), as the product does. A figure, not an assertion.

Prints numbers, then one line of JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml
from langchain_core.messages import HumanMessage
from pydantic import SecretStr

from app.agent.core.turn_plan import plan_turn
from app.agent.nodes.model import ask_model
from app.agent.prompt import prompt_messages, tool_schema
from app.agent.rules import default_policy
from app.agent.tool_offer import ToolOffer, Wide, bind_options, offer_for
from app.context import UIContext
from app.facts import TurnFacts
from app.llm import get_chat_model
from app.planner.rank import ToolRanker
from app.sandbox.local_model import MODEL_NAME
from app.settings import Settings
from app.tools.catalog import TOOL_CATALOG
from bench.local_llm import model_url

ROOT = Path(__file__).resolve().parent.parent
EVAL_FILES = (ROOT / "tests/planner/planner_eval.yaml", ROOT / "tests/agent/planner_eval.yaml")
NO_CONTEXT_REQUEST = "what can you do?"


RANKER = ToolRanker(lambda: TOOL_CATALOG)


def _model(base_url: str, name: str) -> Any:
    settings = Settings(
        dev=True, llm_provider="openai", llm_base_url=base_url, llm_model=name,
        llm_api_key=SecretStr("none"), llm_timeout_s=600,
    )  # fmt: skip
    return get_chat_model(settings)


async def _offer(text: str, object_type: str | None, env: str | None, top_k: int) -> ToolOffer:
    """What the product offers the first model call of an admin's turn saying ``text``."""
    allowed = plan_turn(default_policy(), "admin", object_type, env, None)["allowed_tools"]
    return await offer_for(RANKER, allowed, [HumanMessage(text)], top_k)


def _bound(model: Any, offer: ToolOffer) -> Any:
    catalog = default_policy().catalog
    schemas = [tool_schema(catalog[n]) for n in offer.tools]
    return model.bind_tools(schemas, **bind_options(offer))


def _prompt(
    text: str, env: str | None, envs: dict[str, str], page: dict[str, Any] | None, offer: ToolOffer
) -> Any:
    ui = UIContext(**page) if page else None
    facts = replace(TurnFacts(env, envs), other_tools=offer.others)
    return prompt_messages([HumanMessage(text)], facts, ui)


async def prompt_tokens(model: Any, envs: dict[str, str], top_k: int) -> list[int]:
    """The no-context turn's prompt tokens: twice as offered, then offered every tool."""
    counts = []
    for k in (top_k, top_k, 0):
        offer = await _offer(NO_CONTEXT_REQUEST, None, "dev", k)
        prompt = _prompt(NO_CONTEXT_REQUEST, "dev", envs, None, offer)
        # one token is enough for the server to count the prompt (and a reply it cannot
        # parse has no usage): the count is the prompt's whatever the model would say
        one = model.model_copy(update={"max_tokens": 1})
        try:
            reply = await _bound(one, offer).ainvoke(prompt)
        except Exception as exc:  # the server's error on a cut-off call
            raise SystemExit(f"[llm] the prompt could not be counted: {exc}") from exc
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


async def routing(model: Any, limit: int | None, top_k: int) -> dict[str, Any]:
    defaults, cases = one_step_cases(limit)
    envs = dict(defaults["environments"])
    first = right = clean = offered = 0
    misses = []
    # cases on the same kind of page are asked one after another: the server's prefix
    # cache keeps the system text and the tools they share processed
    cases = sorted(cases, key=lambda c: str((c.get("context") or {}).get("objectType") or ""))
    for case in cases:
        page = case.get("context")
        env = case.get("selected_env", defaults["selected_env"])
        offer = await _offer(case["say"], (page or {}).get("objectType"), env, top_k)
        offered += case["expect"] in offer.tools
        wide = await _offer(case["say"], (page or {}).get("objectType"), env, 0)
        every = Wide(_bound(model, wide), wide.tools, None) if offer.narrowed else None
        prompt = _prompt(case["say"], env, envs, page, offer)
        # as the model node asks: a reply the server could not read is asked once more
        reply, note = await ask_model(_bound(model, offer), prompt, offer.tools, "en", None, every)
        got = reply.tool_calls[0]["name"] if reply.tool_calls else "answer"
        clean += note is None  # the first try was read as it came
        if got == case["expect"]:
            right += 1
            first += note is None
        else:
            said = got if note is None else f"{got} (repaired: {note[:60]})"
            misses.append((case["say"], case["expect"], said))
    for say, expect, got in misses[:15]:
        print(f"  miss: {say!r}: expected {expect}, got {got}")
    instead = Counter(got.split(" ", 1)[0] for _say, _expect, got in misses)
    print("[llm] misses, by what the model did instead: " + ", ".join(
        f"{got} {n}" for got, n in instead.most_common()))  # fmt: skip
    return {
        "cases": len(cases),
        "right": right,
        "first": first,
        "clean": clean,
        "offered": offered,
    }


async def run(
    limit: int | None, base_url: str | None = None, tokens_only: bool = False, top_k: int = 4
) -> dict[str, Any]:
    with model_url(base_url) as url:
        model = _model(url, MODEL_NAME)
        envs = {"dev": "dev", "staging": "staging", "prod": "prod"}
        t0 = time.perf_counter()
        first, second, every = await prompt_tokens(model, envs, top_k)
        print(
            f"[llm] prompt tokens, no-context turn (top {top_k}): {first} (again: {second}); "
            f"offered every tool: {every}"
        )
        print(f"[llm] three calls took {time.perf_counter() - t0:.1f} s")
        tokens = {"prompt_tokens": first, "prompt_tokens_again": second, "every_tool": every}
        if tokens_only:
            return tokens
        t0 = time.perf_counter()
        acc = await routing(model, limit, top_k)
        took = time.perf_counter() - t0
        n = max(1, acc["cases"])
        print(
            f"[llm] routing: {acc['right']}/{acc['cases']} right ({acc['right'] / n:.0%}) after "
            f"the repair try, {acc['first']} ({acc['first'] / n:.0%}) on the first; "
            f"{acc['clean']} first tries read as they came; expected tool offered in "
            f"{acc['offered']}; {took:.0f} s"
        )
        return {
            **tokens,
            "routing_right": acc["right"],
            "routing_first_try": acc["first"],
            "routing_cases": acc["cases"],
            "routing_clean": acc["clean"],
            "expected_offered": acc["offered"],
        }


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
    parser.add_argument(
        "--top-k", type=int, default=Settings().llm_tools_top_k,
        help="tools offered to a request the ranking places (0: every allowed tool)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    result = asyncio.run(run(args.cases, args.base_url, args.tokens_only, args.top_k))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
