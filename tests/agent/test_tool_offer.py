"""What a model call is offered (``app.agent.tool_offer``): the allowed tools narrowed by the
planner's ranking (``app.planner.rank.ToolRanker``, handed over as the product's
composition root does).

* on the planner's eval set, the expected tool is among the offered ones in at least
  98% of the cases, and the offer is narrowed (not the fallback) in almost all of them;
* a narrowed offer is only ever a subset of what RBAC and the page's context allow, and
  names every other allowed tool;
* a request it cannot place, a top-k of 0, an answer to a question, and a model that
  asked outside the offer each get the offer the module says.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from app.agent.core.turn_plan import plan_turn
from app.agent.rules import default_policy
from app.agent.tool_offer import RANK_CHARS, narrow, offer_for
from app.facts import Refusal
from app.planner.rank import ToolRanker
from app.tools.catalog import TOOL_CATALOG
from tests.planner.test_planner_eval import load_eval, steps_of

RANKER = ToolRanker(lambda: TOOL_CATALOG)
TOP_K = 4  # the setting's default
POLICY = default_policy()


def _allowed(role: str, page: str | None) -> list[str]:
    return plan_turn(POLICY, role, page, "dev", None)["allowed_tools"]


def test_the_expected_tool_is_offered_in_98_percent_of_the_planners_eval(capsys: Any) -> None:
    _, cases = load_eval()
    counted = hits = narrowed = sizes = 0
    misses = []
    for case in cases:
        allowed = _allowed("admin", (case.get("context") or {}).get("objectType"))
        expected = {s["expect"] for s in steps_of(case)} & set(allowed)  # policy comes first
        if not expected:
            continue
        offer = narrow(RANKER, allowed, [case["say"]], TOP_K)
        counted += 1
        narrowed += offer.narrowed
        sizes += len(offer.tools)
        if expected <= set(offer.tools):
            hits += 1
        else:
            misses.append(f"{case['say']!r}: {sorted(expected)} not in {offer.tools}")
    with capsys.disabled():
        print(
            f"\noffer on the planner's eval: expected tool offered in {hits}/{counted} "
            f"({hits / counted:.1%}); narrowed {narrowed}/{counted}; "
            f"{sizes / counted:.2f} tools offered on average (of up to 22)"
        )
    assert hits / counted >= 0.98, misses
    assert narrowed / counted >= 0.9  # the recall is the ranking's, not the fallback's


@pytest.mark.parametrize(
    ("role", "page"),
    [
        ("admin", None),  # every tool allowed: narrowing is the only filter
        ("analyst", None),  # RBAC leaves the writes out: never offered, never named
        ("admin", "dashboard"),  # the page's context leaves deploy, delete … out
        ("analyst", "dashboard"),  # both layers
        ("admin", "dataset"),
    ],
)
def test_a_narrowed_offer_is_a_subset_of_what_policy_allows(role: str, page: str | None) -> None:
    allowed = _allowed(role, page)
    excluded = set(TOOL_CATALOG) - set(allowed)
    _, cases = load_eval()
    for case in cases:
        offer = narrow(RANKER, allowed, [case["say"]], TOP_K)
        assert set(offer.tools) <= set(allowed), case["say"]
        assert not (set(offer.tools) | set(offer.others)) & excluded, case["say"]
        assert sorted([*offer.tools, *offer.others]) == sorted(allowed)  # each named once
        assert not offer.narrowed or len(offer.tools) <= TOP_K


@pytest.mark.parametrize(
    ("said", "offered", "why"),
    [
        (["what can you do?"], ["show_capabilities"], "the capabilities only"),
        (["find dashboards about sales"], ["search_dashboards"], "one tool"),
        (
            ["check dashboard 5"],
            ["get_health_summary", "run_llm_validation", "search_dashboards"],
            "generic words only (weak rows): each tool they may mean",
        ),
        (
            ["проверь здоровье дашборда Продажи"],
            ["get_health_summary", "search_dashboards"],
            "a dashboard named by its title is looked up first: the search is offered too",
        ),
        (["hello there"], None, "nothing to place it by: every allowed tool"),
        (
            ["check the health of Sales demo", "dashboard 7 in dev"],
            ["get_health_summary"],
            "an answer to a question (a pick) is read with the request",
        ),
    ],
)
def test_what_a_request_is_offered(said: list[str], offered: list[str] | None, why: str) -> None:
    allowed = _allowed("admin", None)
    offer = narrow(RANKER, allowed, said, TOP_K)
    assert list(offer.tools) == (offered if offered is not None else allowed), why
    assert offer.narrowed is (offered is not None)


def test_the_ranker_reads_a_bounded_head_of_each_message() -> None:
    """The ranking holds the interpreter's lock while it reads: a 20,000-character message
    is read up to RANK_CHARS, and what it asks in its first words still places it."""
    seen: list[list[str]] = []

    def ranker(said, allowed):
        seen.append(list(said))
        return RANKER(said, allowed)

    allowed = _allowed("admin", None)
    hostile = "find dashboards " + "x" * 19_984
    offer = narrow(ranker, allowed, ["hello", hostile], TOP_K)
    assert [len(text) for text in seen[0]] == [5, RANK_CHARS]
    assert offer.tools[0] == "search_dashboards"


def test_a_top_k_of_0_offers_every_allowed_tool() -> None:
    allowed = _allowed("admin", None)
    assert narrow(RANKER, allowed, ["find dashboards"], 0).tools == tuple(allowed)


def test_show_capabilities_is_offered_only_to_a_request_that_ranks_it_or_cannot_be_placed() -> None:
    """Offered beside the ranked tools, a small model picked it instead of the tool the
    request named (docs/model-tools.md has the figures): it stays allowed and named."""
    allowed = _allowed("admin", None)
    placed = narrow(RANKER, allowed, ["find dashboards"], TOP_K)
    assert "show_capabilities" not in placed.tools and "show_capabilities" in placed.others
    assert narrow(RANKER, allowed, ["what can you do?"], TOP_K).tools == ("show_capabilities",)
    assert "show_capabilities" in narrow(RANKER, allowed, ["hello there"], TOP_K).tools


async def test_a_turn_whose_model_asked_outside_the_offer_is_offered_every_tool() -> None:
    allowed = _allowed("admin", None)
    refusal = Refusal(code="unknown_tool", tool_name="check_dashboard_health", message="no")
    turn = [HumanMessage("find dashboards about sales")]
    first = await offer_for(RANKER, allowed, turn, TOP_K)
    assert first.narrowed
    asked = [
        *turn,
        AIMessage("", tool_calls=[{"name": "x", "args": {}, "id": "1", "type": "tool_call"}]),
        ToolMessage(refusal.tool_result(), tool_call_id="1"),
    ]
    wide = await offer_for(RANKER, allowed, asked, TOP_K)
    assert wide.tools == tuple(allowed) and not wide.others
    assert (await offer_for(None, allowed, turn, TOP_K)).tools == tuple(allowed)
