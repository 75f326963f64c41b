"""The offline planner against the operator-request eval (tests/agent/planner_eval.yaml).

Every case runs through the planner bound with all 22 tools. Tool accuracy counts the
right tool; argument accuracy counts the right tool *and* every expected argument
(a subset match). Both must stay at or above 90%.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from langchain_core.messages import HumanMessage, SystemMessage

from app.agent.planner import OfflinePlanner
from app.agent.planner.text import detect_lang
from app.agent.prompts import build_system_prompt
from app.agent.tools import TOOL_CATALOG
from app.context import inject_uicontext

EVAL_FILE = Path(__file__).with_name("planner_eval.yaml")
THRESHOLD = 0.90


def openai_tools(names: list[str] | None = None) -> list[dict[str, Any]]:
    specs = [TOOL_CATALOG[n] for n in (names or list(TOOL_CATALOG))]
    return [
        {
            "type": "function",
            "function": {
                "name": s.name,
                "description": s.description,
                "parameters": s.args_model.model_json_schema(),
            },
        }
        for s in specs
    ]


def load_eval() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    data = yaml.safe_load(EVAL_FILE.read_text(encoding="utf-8"))
    return data["defaults"], data["cases"]


def case_messages(case: dict[str, Any], defaults: dict[str, Any]) -> list[Any]:
    envs = case.get("environments", defaults["environments"])
    system = build_system_prompt(
        selected_env_id=case.get("selected_env", defaults["selected_env"]),
        environments=[{"id": env_id, "tier": tier} for env_id, tier in envs.items()],
        lang=detect_lang(case["say"]),
        uicontext_block=inject_uicontext("", case.get("context")),
    )
    return [SystemMessage(system), HumanMessage(case["say"])]


def run_case(
    planner: Any, case: dict[str, Any], defaults: dict[str, Any]
) -> tuple[bool, bool, str]:
    reply = planner.invoke(case_messages(case, defaults))
    call = reply.tool_calls[0] if reply.tool_calls else None
    tool_ok = call is not None and call["name"] == case["expect"]
    expected = case.get("args") or {}
    args_ok = tool_ok and all(call["args"].get(k) == v for k, v in expected.items())
    got = f"{call['name']}({call['args']})" if call else f"answer: {reply.text[:60]!r}"
    return tool_ok, args_ok, got


def test_eval_set_is_large_varied_and_half_russian():
    _, cases = load_eval()
    russian = [c for c in cases if detect_lang(c["say"]) == "ru"]
    assert len(cases) >= 70
    assert len(russian) * 2 >= len(cases)
    assert {c["expect"] for c in cases} == set(TOOL_CATALOG)
    assert len({c["say"] for c in cases}) == len(cases), "duplicate requests"


def test_planner_accuracy_on_the_eval_set_is_at_least_90_percent(capsys):
    defaults, cases = load_eval()
    planner = OfflinePlanner().bind_tools(openai_tools())
    tool_hits = args_hits = 0
    misses: list[str] = []
    for case in cases:
        tool_ok, args_ok, got = run_case(planner, case, defaults)
        tool_hits += tool_ok
        args_hits += args_ok
        if not args_ok:
            misses.append(
                f"  {case['say']!r}: expected {case['expect']}{case.get('args', {})}, got {got}"
            )
    tool_acc, args_acc = tool_hits / len(cases), args_hits / len(cases)
    with capsys.disabled():
        print(
            f"\nplanner eval: {len(cases)} cases, tool accuracy {tool_acc:.1%}, "
            f"argument accuracy {args_acc:.1%}"
        )
        print("\n".join(misses))
    assert tool_acc >= THRESHOLD, misses
    assert args_acc >= THRESHOLD, misses


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_eval_accuracy_holds_in_each_language(lang):
    defaults, cases = load_eval()
    planner = OfflinePlanner().bind_tools(openai_tools())
    subset = [c for c in cases if detect_lang(c["say"]) == lang]
    hits = sum(run_case(planner, c, defaults)[0] for c in subset)
    assert hits / len(subset) >= THRESHOLD


def test_every_proposed_call_validates_against_the_catalogs_argument_model():
    defaults, cases = load_eval()
    planner = OfflinePlanner().bind_tools(openai_tools())
    for case in cases:
        for call in planner.invoke(case_messages(case, defaults)).tool_calls:
            TOOL_CATALOG[call["name"]].args_model.model_validate(call["args"])
