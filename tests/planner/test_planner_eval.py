"""The offline planner against the operator-request eval (tests/planner/planner_eval.yaml).

Every case runs through the planner bound with every catalog tool; the cases cover the
contract's 22 tools (a tool declared later is held to its own example by
``test_planner_prompt.py``). A case is one step
(``expect`` + ``args``) or several (``steps``): each step but the last carries the
``result`` its tool returns (a mapping/list is JSON-encoded, a string is used as is), fed
back as the tool's message before the planner is called again, as the graph does. A step
``expect: answer`` means no tool call, with ``contains`` the texts the answer must hold.

Tool accuracy counts cases whose every step proposed the right tool (or answered);
argument accuracy counts cases whose every step also had every expected argument (a
subset match) or every expected text. Both must stay at 100%.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from app.agent.prompt import build_system_prompt
from app.context import inject_uicontext
from app.i18n import detect_lang
from app.planner import OfflinePlanner
from app.tools.catalog import TOOL_CATALOG  # the one import of the catalog in the planner's tests
from tests.policy.test_catalog import DESIGN_TABLE

EVAL_FILE = Path(__file__).with_name("planner_eval.yaml")
THRESHOLD = 1.0
ANSWER = "answer"
CATALOG = TOOL_CATALOG


def openai_tools(names: list[str] | None = None) -> list[dict[str, Any]]:
    specs = [CATALOG[n] for n in (names or list(CATALOG))]
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


def steps_of(case: dict[str, Any]) -> list[dict[str, Any]]:
    return case.get("steps") or [{"expect": case["expect"], "args": case.get("args") or {}}]


def case_messages(case: dict[str, Any], defaults: dict[str, Any]) -> list[Any]:
    envs = case.get("environments", defaults["environments"])
    system = build_system_prompt(
        selected_env_id=case.get("selected_env", defaults["selected_env"]),
        environments=[{"id": env_id, "tier": tier} for env_id, tier in envs.items()],
        lang=detect_lang(case["say"]),
        uicontext_block=inject_uicontext("", case.get("context")),
    )
    return [SystemMessage(system), HumanMessage(case["say"])]


def result_text(result: Any) -> str:
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)


def _check(step: dict[str, Any], reply: AIMessage) -> tuple[bool, bool, str]:
    call = reply.tool_calls[0] if reply.tool_calls else None
    if step["expect"] == ANSWER:
        texts = step.get("contains") or []
        missing = [t for t in texts if t not in reply.text]
        missing += [f"no {t!r}" for t in step.get("absent") or [] if t in reply.text]
        got = f"{call['name']}({call['args']})" if call else f"answer missing {missing}"
        return call is None, call is None and not missing, got
    tool_ok = call is not None and call["name"] == step["expect"]
    expected = step.get("args") or {}
    args_ok = tool_ok and all(call["args"].get(k) == v for k, v in expected.items())
    got = f"{call['name']}({call['args']})" if call else f"answer: {reply.text[:80]!r}"
    return tool_ok, args_ok, got


def run_case(
    planner: Any, case: dict[str, Any], defaults: dict[str, Any]
) -> tuple[bool, bool, str]:
    """(every step's tool right, every step's arguments right, what went wrong)."""
    messages = case_messages(case, defaults)
    for number, step in enumerate(steps_of(case), start=1):
        reply = planner.invoke(messages)
        tool_ok, args_ok, got = _check(step, reply)
        if not args_ok:
            return tool_ok, False, f"step {number}: expected {step['expect']}, got {got}"
        if "result" in step:
            call = reply.tool_calls[0]
            messages += [
                AIMessage(reply.text, tool_calls=reply.tool_calls),
                ToolMessage(
                    result_text(step["result"]), tool_call_id=call["id"], name=call["name"]
                ),
            ]
        if "then" in step:  # the person answers the question
            messages += [AIMessage(reply.text), HumanMessage(step["then"])]
    return True, True, ""


def proposed_calls(planner: Any, case: dict[str, Any], defaults: dict[str, Any]) -> list[Any]:
    """Every tool call the planner proposes along the case's steps."""
    messages, calls = case_messages(case, defaults), []
    for step in steps_of(case):
        reply = planner.invoke(messages)
        calls += reply.tool_calls
        if "result" in step and reply.tool_calls:
            call = reply.tool_calls[0]
            messages += [
                AIMessage(reply.text, tool_calls=reply.tool_calls),
                ToolMessage(result_text(step["result"]), tool_call_id=call["id"]),
            ]
        if "then" in step:
            messages += [AIMessage(reply.text), HumanMessage(step["then"])]
    return calls


def test_eval_set_is_large_varied_and_half_russian():
    _, cases = load_eval()
    russian = [c for c in cases if detect_lang(c["say"]) == "ru"]
    multi = [c for c in cases if len(steps_of(c)) > 1]
    assert len(cases) >= 230 and len(multi) >= 20
    assert len(russian) * 2 >= len(cases)
    expected = {s["expect"] for c in cases for s in steps_of(c)}
    assert set(DESIGN_TABLE) | {ANSWER} <= expected <= set(CATALOG) | {ANSWER}
    assert len({c["say"] + str(c.get("context")) for c in cases}) == len(cases), "duplicates"


def test_planner_accuracy_on_the_eval_set_is_100_percent(capsys):
    defaults, cases = load_eval()
    planner = OfflinePlanner(catalog=CATALOG).bind_tools(openai_tools())
    tool_hits = args_hits = 0
    misses: list[str] = []
    for case in cases:
        tool_ok, args_ok, got = run_case(planner, case, defaults)
        tool_hits += tool_ok
        args_hits += args_ok
        if not args_ok:
            misses.append(f"  {case['say']!r}: {got}")
    tool_acc, args_acc = tool_hits / len(cases), args_hits / len(cases)
    multi = sum(len(steps_of(c)) > 1 for c in cases)
    with capsys.disabled():
        print(
            f"\nplanner eval: {len(cases)} cases ({multi} multi-step), "
            f"tool accuracy {tool_acc:.1%}, argument accuracy {args_acc:.1%}"
        )
        print("\n".join(misses))
    assert tool_acc >= THRESHOLD, misses
    assert args_acc >= THRESHOLD, misses


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_eval_accuracy_holds_in_each_language(lang):
    defaults, cases = load_eval()
    planner = OfflinePlanner(catalog=CATALOG).bind_tools(openai_tools())
    subset = [c for c in cases if detect_lang(c["say"]) == lang]
    hits = sum(run_case(planner, c, defaults)[1] for c in subset)
    assert hits / len(subset) >= THRESHOLD


def test_every_proposed_call_validates_against_the_catalogs_argument_model():
    defaults, cases = load_eval()
    planner = OfflinePlanner(catalog=CATALOG).bind_tools(openai_tools())
    for case in cases:
        for call in proposed_calls(planner, case, defaults):
            CATALOG[call["name"]].args_model.model_validate(call["args"])
