"""The product with a real small LLM answering (llama-server + Qwen2.5-Coder-0.5B on the
CPU), over HTTP (``POST /api/agent/stream``, SSE), against the real Superset sandbox.

Each test is one or two model turns, and asserts what the product does with whatever the
model wrote: event types and their typed fields, the audit rows, ``done``, never the
generic "could not finish this turn", never a stack trace — not the model's wording.
Where the small model may take more than one product-valid road, the test accepts each
and asserts the invariants of all of them.

* a read comes back with its result (a ``tool_end`` with its card's ``view``), audited;
* the answer streams as several ``token`` events before ``done``;
* a delete in prod stops at its dangerous confirmation (and nothing is deleted);
* an analyst's delete never runs: the model is not offered the tool; the same call made
  at the door is ``permission_denied`` with a typed refusal;
* on a dashboard's page, a delete the page's context leaves out ends with the typed way
  forward (an offer to go on without the page's context), never a confirmation;
* a tool name the model makes up ends the turn well: ``done``, an audit row of what the
  model got wrong, a sentence for the person.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.llm.conftest import Turn, ask, audit, stream, token
from tests.llm_fixtures import LLM_TEST_TIMEOUT_S
from tests.sandbox_fixtures import dashboard_exists

pytestmark = [
    pytest.mark.llm,
    pytest.mark.superset,
    pytest.mark.timeout(LLM_TEST_TIMEOUT_S),
]

READ_TOOLS_WITH_CARDS = {"search_dashboards", "list_environments", "show_capabilities"}


def _model_rows(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """Audit rows of what the model got wrong (repaired or ending the turn)."""
    return [r for r in rows if r["reason"].startswith("model:")]


def test_a_read_comes_back_with_its_result_card(llm_product: Any) -> None:
    admin = token(llm_product, "ops")
    turn = ask(llm_product, admin, "find dashboards about sales", env_id="dev")

    turn.ended_well()
    start = turn.of("turn_start")[0]
    assert "qwen2.5-coder-0.5b" in start["model"]  # which model answers, said at once
    assert start["tools_offered"] == 23  # the contract's 22 and undo_change
    ended = [e for e in turn.of("tool_end") if e["status"] == "completed"]
    assert ended, turn.events
    read = ended[0]
    assert read["tool_name"] in READ_TOOLS_WITH_CARDS, read["tool_name"]
    assert read["view"] is not None and read["data"] is not None  # the page's result card
    started = {e["call_id"]: e for e in turn.of("tool_start")}
    assert started[read["call_id"]]["is_write_tool"] is False
    rows = audit(llm_product, admin, turn.conv_id)
    assert any(r["kind"] == "executed" and r["tool"] == read["tool_name"] for r in rows), rows
    # then the model's answer, or the product's own sentence when the model went on with
    # a call it may not repeat (each said on the message, each audited)
    assert turn.said().strip()
    if turn.of("message")[-1].get("problem"):
        assert _model_rows(rows) or any(r["decision"] == "error" for r in rows), rows


def test_an_answer_in_text_streams_as_tokens_before_done(llm_product: Any) -> None:
    admin = token(llm_product, "ops")
    turn = ask(llm_product, admin, "hello! who are you?", env_id="dev")

    turn.ended_well()
    tokens = turn.of("token")
    assert len(tokens) >= 3, turn.events  # streamed piece by piece, not in one block
    assert max(i for i, kind in enumerate(turn.types) if kind == "token") < turn.types.index(
        "message"
    )
    streamed = "".join(t["text"] for t in tokens)
    assert streamed.strip() and not streamed.lstrip().startswith("{")  # never a call as text


def test_a_delete_in_prod_stops_at_its_dangerous_confirmation(
    llm_product: Any, superset_sandbox: Any, prod_dashboard: int
) -> None:
    admin = token(llm_product, "ops")
    turn = ask(llm_product, admin, f"delete dashboard {prod_dashboard} in prod", env_id="prod")

    turn.ended_well()
    (card,) = turn.of("confirm_required")
    meta = card["metadata"]
    assert (meta["tool_name"], meta["env_id"]) == ("delete_dashboard", "prod"), meta
    assert meta["dangerous"] is True and card["countdown_s"] == 3
    assert turn.of("done")[-1]["state"] == "awaiting_confirmation"
    assert not turn.of("tool_end")  # nothing ran before the person answers
    rows = audit(llm_product, admin, turn.conv_id)
    assert any(r["kind"] == "confirm_requested" and r["tool"] == "delete_dashboard" for r in rows)

    withdrawn = llm_product.post("/api/agent/cancel", admin, {"conv_id": turn.conv_id}).json()
    assert withdrawn["withdrawn"], withdrawn
    assert dashboard_exists(superset_sandbox, "prod", prod_dashboard)


def test_an_analysts_delete_never_runs_and_the_door_says_permission_denied(
    llm_product: Any, superset_sandbox: Any, prod_dashboard: int
) -> None:
    analyst, admin = token(llm_product, "ana"), token(llm_product, "ops")
    turn = ask(llm_product, analyst, f"delete dashboard {prod_dashboard} in prod", env_id="prod")

    turn.ended_well()
    assert turn.of("turn_start")[0]["tools_offered"] < 22  # the analyst's tools: reads only
    assert "confirm_required" not in turn.types
    assert not [e for e in turn.of("tool_start") if e["is_write_tool"]], turn.events
    for denied in turn.of("permission_denied"):  # if the model named it in a way we read
        assert denied["refusal"]["code"] == "permission_denied"
        assert denied["required_role"] == "admin"
    assert turn.said().strip()

    # the same delete asked at the door (an offer's call): refused as a typed fact
    door = stream(
        llm_product,
        analyst,
        "/api/agent/call",
        {
            "conv_id": turn.conv_id,
            "tool_name": "delete_dashboard",
            "args": {"dashboard_id": str(prod_dashboard), "env_id": "prod"},
        },
    )
    door.ended_well()
    (denied,) = door.of("permission_denied")
    assert (denied["tool_name"], denied["required_role"]) == ("delete_dashboard", "admin")
    refusal = denied["refusal"]
    assert (refusal["code"], refusal["role"], refusal["required_role"]) == (
        "permission_denied",
        "analyst",
        "admin",
    )
    assert "confirm_required" not in door.types and not door.of("tool_start")
    rows = audit(llm_product, admin, turn.conv_id)
    assert any(r["kind"] == "permission_denied" and r["role"] == "analyst" for r in rows), rows
    assert dashboard_exists(superset_sandbox, "prod", prod_dashboard)


def test_on_a_dashboard_page_a_delete_the_context_leaves_out_offers_the_way_forward(
    llm_product: Any, superset_sandbox: Any, prod_dashboard: int
) -> None:
    admin = token(llm_product, "ops")
    page = {
        "objectType": "dashboard",
        "objectId": str(prod_dashboard),
        "objectName": "LLM Keep",
        "envId": "prod",
    }
    turn = ask(llm_product, admin, "delete this dashboard", env_id="prod", uicontext=page)

    turn.ended_well()
    start = turn.of("turn_start")[0]
    assert start["object_type"] == "dashboard" and start["tools_offered"] < 22
    assert "confirm_required" not in turn.types  # the page's context leaves delete out
    assert not [e for e in turn.of("tool_start") if e["is_write_tool"]], turn.events
    ways = [o for o in turn.offers() if o["kind"] == "without_context"]
    called = bool(turn.of("tool_start"))
    # the model called a tool the page offers (then it answered on that result), or it
    # named the left-out delete / answered without a call: the way forward is offered
    assert called or ways, turn.events
    for way in ways:
        assert way["clear_context"] is True and way["label"]
    rows = audit(llm_product, admin, turn.conv_id)
    problem = turn.of("message")[-1].get("problem") if turn.of("message") else None
    if called or problem:  # a call, or what the model got wrong, leaves its audit row
        assert rows, turn.events
    assert dashboard_exists(superset_sandbox, "prod", prod_dashboard)


def test_a_tool_name_the_model_makes_up_ends_the_turn_well(llm_product: Any) -> None:
    """The small model names a tool that does not exist for this request (llama.cpp then
    answers HTTP 500: bench.llm_bench's eval, before and after the prompt's tightening);
    the product repairs once, then says so."""
    admin = token(llm_product, "ops")
    turn: Turn = ask(llm_product, admin, "give me an overview of your tools", env_id="dev")

    turn.ended_well()
    assert turn.said().strip()  # a sentence, in the turn's language (English here)
    rows = audit(llm_product, admin, turn.conv_id)
    problem = turn.of("message")[-1].get("problem")
    if problem is not None:  # the turn ended on what the model wrote: said and audited
        assert problem in {"unknown_tool", "unreadable", "invalid_arguments", "repeated_call"}
        assert _model_rows(rows), rows
    if turn.of("tool_start"):  # the model found a real tool: its call is audited
        assert rows, turn.events
    # which road the model took (a figure for the log, not an assertion)
    calls = [e["tool_name"] for e in turn.of("tool_start")]
    print(f"made-up-name turn: problem={problem} calls={calls}")
