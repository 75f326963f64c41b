"""A model's ordinary mistakes, taken the way ``app.agent.model_mistakes`` says, and the
narrowed offer at the model node (``app.agent.tool_offer``), with a scripted model:

* a reply of eight calls runs one call and shows one line; the other calls are answered
  "set aside" and the reply is audited once;
* a model known to handle parallel calls still runs every call of a reply;
* a turn shows at most one line for the model's mistakes; a repeat ends the turn with a
  sentence that says how many, "ask in other words" and what the person can ask;
* a stray argument on a read is dropped with a note; a write stays strict;
* the model node offers the narrowed tools (the others named in the turn's facts), asks
  the first call of the turn for a call, and offers every allowed tool after the model
  asked outside the offer or its reply could not be read; a call to an allowed tool it
  was not offered still runs (the guard checks what policy allows, not what was offered).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, SystemMessage, ToolMessage

from app.events import ErrorEvent, MessageEvent
from app.facts import read_refusal
from app.planner.rank import ToolRanker
from app.tools.catalog import TOOL_CATALOG
from tests.agent.harness import types_of
from tests.agent.scripted import call, recording_tools

RANKER = ToolRanker(lambda: TOOL_CATALOG)
#: what the small model sends for "what can you do?" (each read, with an argument none has)
FAN_OUT = [
    "show_capabilities",
    "list_environments",
    "get_task_status",
    "search_dashboards",
    "list_backups",
    "superset_explore_database",
    "superset_audit_permissions",
    "get_health_summary",
]


def calls(*proposed: tuple[str, dict[str, Any]]) -> AIMessage:
    """One reply proposing every call of ``proposed``."""
    return AIMessage(
        content="",
        tool_calls=[
            {"name": name, "args": args, "id": f"fan_{i}", "type": "tool_call"}
            for i, (name, args) in enumerate(proposed)
        ],
    )


def lines(events: list[Any]) -> list[ErrorEvent]:
    """What the page shows as a refusal's line."""
    return [e for e in events if isinstance(e, ErrorEvent)]


def final(events: list[Any]) -> MessageEvent:
    message = events[-2]
    assert isinstance(message, MessageEvent), types_of(events)
    return message


async def test_a_reply_of_eight_calls_runs_one_and_shows_one_line(harness: Any) -> None:
    log: list[Any] = []
    fan_out = calls(*[(name, {"verbose": True}) for name in FAN_OUT])
    rec = harness.use(fan_out, "Here is what I can do.", tools=recording_tools(log))
    events = await harness.turn("what can you do?")

    assert [name for name, _ in log] == ["show_capabilities"]  # the first that passes
    (line,) = lines(events)
    assert line.refusal is not None and line.refusal.code == "one_at_a_time"
    assert line.refusal.tool_name == "show_capabilities" and len(line.refusal.tools) == 7
    assert final(events).problem is None and events[-1].state == "idle"
    results = [m for m in rec.seen[1] if isinstance(m, ToolMessage)]
    codes = [r.code for m in results if (r := read_refusal(str(m.content)))]
    assert len(results) == 8 and codes == ["one_at_a_time"] * 7  # every call answered
    notes = [r for r in harness.audit_rows() if "calls in one reply" in str(r["reason"])]
    assert len(notes) == 1 and notes[0]["tool"] == "show_capabilities"


async def test_the_first_call_that_passes_runs_when_an_earlier_one_is_refused(
    harness: Any,
) -> None:
    log: list[Any] = []
    reply = calls(("delete_dashboard", {"dashboard": "2"}), ("list_environments", {}))
    harness.use(reply, "Done.", tools=recording_tools(log))
    events = await harness.turn("delete dashboard 2 and list the environments")
    assert [name for name, _ in log] == ["list_environments"]
    assert [e.refusal.code for e in lines(events) if e.refusal] == ["one_at_a_time"]
    assert "confirm_required" not in types_of(events)


async def test_a_model_known_for_parallel_calls_runs_every_call(harness: Any) -> None:
    harness.configure(llm_parallel_tool_calls=True)
    log: list[Any] = []
    reply = calls(("list_environments", {}), ("search_dashboards", {"query": "sales"}))
    harness.use(reply, "Done.", tools=recording_tools(log))
    events = await harness.turn("list environments and find sales dashboards")
    assert [name for name, _ in log] == ["list_environments", "search_dashboards"]
    assert lines(events) == []


async def test_no_call_of_a_reply_passes_one_mistake_ends_the_turn_with_how_many(
    harness: Any,
) -> None:
    reply = calls(*[(f"made_up_{i}", {}) for i in range(8)])
    harness.use(reply, "never asked")
    events = await harness.turn("what can you do?")
    assert lines(events) == []  # the turn's end says it, once
    message = final(events)
    assert message.problem == "unknown_tool" and "8 times" in message.text
    assert "other words" in message.text
    (way,) = message.offers
    assert way.kind == "suggestion" and way.call is not None
    assert way.call.tool_name == "show_capabilities"


async def test_a_turn_shows_one_line_for_the_models_mistakes(harness: Any) -> None:
    log: list[Any] = []
    harness.use(
        call("check_dashboard_health", dashboard_id="2"),  # a tool that does not exist
        call("deploy_dashboard", dashboard="2"),  # a write with arguments it does not have
        call("get_health_summary", dashboard_id="2"),
        "Dashboard 2 is healthy.",
        tools=recording_tools(log),
    )
    events = await harness.turn("is dashboard 2 ok?")
    assert [e.refusal.code for e in lines(events) if e.refusal] == ["unknown_tool"]
    assert [name for name, _ in log] == ["get_health_summary"]
    assert final(events).problem is None
    refused = [r for r in harness.audit_rows() if r["decision"] == "error" and r["tool"]]
    assert {r["tool"] for r in refused} == {"check_dashboard_health", "deploy_dashboard"}


async def test_a_repeated_call_ends_the_turn_without_a_line_of_its_own(harness: Any) -> None:
    search = call("search_dashboards", query="sales")
    harness.use(search, call("search_dashboards", query="sales"))  # it fails: no body
    events = await harness.turn("find sales dashboards")
    assert lines(events) == []
    message = final(events)
    assert message.problem == "repeated_call"
    assert [o.kind for o in message.offers] == ["suggestion"]


async def test_a_repeat_of_a_call_whose_result_is_in_ends_with_that_result(
    harness: Any,
) -> None:
    log: list[Any] = []
    search = call("search_dashboards", query="sales")
    harness.use(search, call("search_dashboards", query="sales"), tools=recording_tools(log))
    events = await harness.turn("find sales dashboards")
    assert lines(events) == [] and len(log) == 1
    message = final(events)
    assert message.problem is None and message.offers == []  # the answer, not a problem


async def test_a_stray_argument_on_a_read_is_dropped_with_a_note(harness: Any) -> None:
    log: list[Any] = []
    rec = harness.use(
        call("search_dashboards", query="sales", verbose=True, region="eu"),
        "Found one.",
        tools=recording_tools(log),
    )
    events = await harness.turn("find sales dashboards")
    assert log and log[0][0] == "search_dashboards" and log[0][1]["query"] == "sales"
    assert lines(events) == [] and final(events).problem is None
    result = next(m for m in rec.seen[1] if isinstance(m, ToolMessage))
    assert str(result.content).startswith("NOTE: arguments this tool does not have")
    assert "region" in str(result.content) and "verbose" in str(result.content)
    rows = [r for r in harness.audit_rows() if r["kind"] == "retried"]
    assert rows and "were ignored: verbose, region" in rows[0]["reason"]


async def test_a_stray_argument_on_a_write_is_refused(harness: Any) -> None:
    log: list[Any] = []
    harness.use(
        call("run_backup", env_id="dev", verbose=True), "Not done.", tools=recording_tools(log)
    )
    events = await harness.turn("back up dev")
    assert log == [] and "confirm_required" not in types_of(events)
    (line,) = lines(events)
    assert line.refusal is not None and line.refusal.code == "invalid_arguments"


async def test_an_optional_argument_written_empty_on_a_read_is_read_as_left_out(
    harness: Any,
) -> None:
    """``"schema": ""`` is refused by the tool (not an identifier); on a read it runs as
    left out, with a stray beside it dropped: one note for the model, one audit row."""
    log: list[Any] = []
    explore = call("superset_explore_database", database="examples", schema="", verbose=1)
    rec = harness.use(explore, "Here they are.", tools=recording_tools(log))
    events = await harness.turn("what tables are in the examples database?")
    assert [(name, args["database"], args["schema"]) for name, args in log] == [
        ("superset_explore_database", "examples", None)
    ]
    assert lines(events) == [] and final(events).problem is None
    result = next(m for m in rec.seen[1] if isinstance(m, ToolMessage))
    assert str(result.content).startswith(
        "NOTE: arguments this tool does not have were ignored: verbose; "
        "arguments left empty were read as left out: schema.\n"
    )
    (row,) = [r for r in harness.audit_rows() if r["kind"] == "retried"]
    assert row["reason"] == (
        "model: superset_explore_database: arguments this tool does not have were ignored: "
        "verbose; arguments left empty were read as left out: schema"
    )


async def test_an_optional_argument_written_empty_on_a_write_is_refused(harness: Any) -> None:
    log: list[Any] = []
    dataset = call("superset_create_dataset", database="examples", table_name="t", schema="")
    harness.use(dataset, "Not done.", tools=recording_tools(log))
    events = await harness.turn("make a dataset of t")
    assert log == [] and "confirm_required" not in types_of(events)
    (line,) = lines(events)
    assert line.refusal is not None and line.refusal.code == "invalid_arguments"


async def test_the_model_node_offers_the_narrowed_tools_and_names_the_others(
    harness: Any,
) -> None:
    rec = harness.use(call("search_dashboards", query="sales"), "Found one.", ranker=RANKER)
    await harness.turn("find dashboards about sales")
    assert rec.bound[0] == ["search_dashboards"]
    facts = [m for m in rec.seen[0] if isinstance(m, SystemMessage) and "TURN FACTS" in m.text]
    assert "other_tools: show_capabilities, list_environments, get_task_status" in facts[0].text
    assert rec.bound[1] == ["search_dashboards"]
    # the first call is asked for a call; once one has run, the model answers freely
    assert rec.options == [{"tool_choice": "required"}, {}]


async def test_a_turn_the_ranking_cannot_place_leaves_the_model_free(harness: Any) -> None:
    rec = harness.use("Hello! I am the Superset operator's assistant.", ranker=RANKER)
    await harness.turn("hello there")
    assert len(rec.bound[0]) == len(TOOL_CATALOG) and rec.options == [{}]


async def test_a_model_that_asked_outside_the_offer_is_offered_every_tool(harness: Any) -> None:
    rec = harness.use(call("check_health", dashboard_id="2"), "Sorry.", ranker=RANKER)
    await harness.turn("find dashboards about sales")
    assert rec.bound[0] == ["search_dashboards"]
    assert len(rec.bound[1]) == len(TOOL_CATALOG)  # the repair: every allowed tool


async def test_an_unreadable_reply_to_a_narrowed_offer_is_repaired_with_every_tool(
    harness: Any,
) -> None:
    def server_500(messages: Any, bound: Any) -> AIMessage:
        error = Exception("Error code: 500 - the output does not match the format")
        error.status_code = 500  # type: ignore[attr-defined]
        raise error

    log: list[Any] = []
    rec = harness.use(
        server_500,
        call("deploy_dashboard", dashboard_id="2", target_env="prod"),
        tools=recording_tools(log),
        ranker=RANKER,
    )
    events = await harness.turn("find dashboards about sales")
    assert rec.bound[0] == ["search_dashboards"]
    assert len(rec.bound[1]) == len(TOOL_CATALOG)
    assert "deploy_dashboard" in str(rec.seen[1][-1].content)  # the repair note lists it
    assert "confirm_required" in types_of(events)  # reached through the fallback


async def test_an_allowed_tool_outside_the_offer_still_runs(harness: Any) -> None:
    """A server that passes any name through (vLLM, Ollama): the model names a tool from
    ``other_tools``; the guard checks what policy allows, so it runs."""
    log: list[Any] = []
    harness.use(call("list_environments"), "Three.", tools=recording_tools(log), ranker=RANKER)
    await harness.turn("find dashboards about sales")
    assert [name for name, _ in log] == ["list_environments"]


async def test_an_analyst_is_never_offered_a_write_whatever_the_ranking(harness: Any) -> None:
    def ranks_writes_first(said: Any, among: Any) -> list[str]:
        return ["delete_dashboard", "deploy_dashboard", "search_dashboards"]

    rec = harness.use("No.", ranker=ranks_writes_first)
    await harness.turn("delete dashboard 2", role="analyst")
    assert rec.bound[0] == ["search_dashboards"]
