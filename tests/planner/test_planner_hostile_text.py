"""The planner reads a hostile message of up to 20,000 characters in linear time.

Every regex is held to linear time on its own (``tests/security/test_linear_regexes.py``);
this holds the planner as a whole, whose scans can be quadratic without any regex being
so (the words before each of thousands of environment mentions, read again for each).
Each shape of :data:`bench.redos_bench.CASES` (the bench prints the numbers) is planned at
2,000 and at 20,000 characters with the thread's CPU clock, and the larger must take at
most 30× as long (linear: 10×; quadratic: 100×), plus 50 ms. A run past that bound is cut
by a CPU budget, so a regression fails in a second instead of running for hours.
"""

from __future__ import annotations

import time

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from app.agent.prompt import build_system_prompt
from app.planner import plan_reply
from app.planner.known import Known
from app.tools.catalog import TOOL_CATALOG
from bench.redos_bench import CASES, MESSAGE_CAP
from tests.security.regex_attacks import BudgetExceeded, cpu_budget

BASE = 2_000
SLACK = 3.0
FLOOR_S = 0.05
BASE_BUDGET_S = 2.0  # the planner reads 2,000 characters in milliseconds
ENVIRONMENTS = [{"id": e, "tier": e} for e in ("dev", "staging", "prod")]
SYSTEM = build_system_prompt(selected_env_id="dev", environments=ENVIRONMENTS, lang="en")
KNOWN = Known(TOOL_CATALOG)


def _plan(text: str, budget: float) -> float:
    """CPU seconds the planner took for ``text`` (inf past ``budget``)."""
    messages = [SystemMessage(SYSTEM), HumanMessage(text)]
    start = time.thread_time()
    try:
        with cpu_budget(budget):
            plan_reply(messages, tuple(TOOL_CATALOG), KNOWN)
    except BudgetExceeded:
        return float("inf")
    return time.thread_time() - start


@pytest.mark.parametrize("shape", sorted(CASES))
def test_the_planner_reads_a_hostile_message_in_linear_time(shape):
    small, big = CASES[shape](BASE), CASES[shape](MESSAGE_CAP)
    assert (len(small), len(big)) == (BASE, MESSAGE_CAP)
    _plan(small, BASE_BUDGET_S)  # warm: the shape's first call fills caches
    base = min(_plan(small, BASE_BUDGET_S), _plan(small, BASE_BUDGET_S))
    assert base < BASE_BUDGET_S, f"{shape}: over {BASE_BUDGET_S} s at {BASE} characters"
    bound = SLACK * (MESSAGE_CAP / BASE) * base + FLOOR_S
    spent = _plan(big, bound)
    if spent > bound:  # measured once more before it is called super-linear
        spent = min(spent, _plan(big, bound))
    assert spent <= bound, f"{shape}: {base * 1000:.1f} ms at {BASE}, {spent * 1000:.0f} ms at cap"
