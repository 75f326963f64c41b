"""Acting in Superset as the person, against the real Superset 6.1 sandbox: what a person
sees through the agent is what they see straight in Superset (the issue's five rows), a
refused call never reaches Superset, a deactivated account is refused, and two people at
once never see each other's answers.

The sandbox seeds ``alice`` in dev (the sales dataset only, row-level rule region =
'North', RLS in SQL Lab on); ``gamma`` (Gamma + sql_lab, no grant at all) is made here."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from app.events import ErrorEvent, ToolEndEvent
from app.sandbox import Sandbox
from app.superset.registry import EnvironmentRegistry
from tests.agent.harness import Harness
from tests.identity import straight
from tests.identity.straight import as_person, chart_id, queries, sql

pytestmark = pytest.mark.superset

AT_ONCE = 6
REGIONS = "select region, count(*) as c from sales group by region order by region"


async def _link(registry: EnvironmentRegistry, user: str, name: str, password: str) -> None:
    assert registry.accounts is not None
    await registry.accounts.link(registry.get("dev"), user, name, password)


async def agent(
    harness: Harness, user: str, tool: str, role: str = "analyst", **args: Any
) -> tuple[ToolEndEvent | None, ErrorEvent | None]:
    """A direct call of ``tool`` by ``user`` through the agent core (guard, tool node):
    its tool_end and its error, if any."""
    if harness.core is None:
        harness.use(real=True)
    events = await harness.call(tool, args, user=user, role=role, conv_id=uuid.uuid4().hex)
    end = next((e for e in events if isinstance(e, ToolEndEvent)), None)
    error = next((e for e in events if isinstance(e, ErrorEvent)), None)
    return end, error


@pytest.fixture
def gamma_password(superset_sandbox: Sandbox) -> str:
    return straight.ensure_user(superset_sandbox, "gamma", ["Gamma", "sql_lab"])


# ---- the five rows ----------------------------------------------------------------------
@pytest.mark.parametrize("who", ["gamma", "alice"])
async def test_row1_the_databases_a_person_sees_are_supersets_answer_for_them(
    harness: Harness, on_person_dev: EnvironmentRegistry, superset_sandbox: Sandbox,
    gamma_password: str, alice_password: str, who: str,
) -> None:  # fmt: skip
    password = gamma_password if who == "gamma" else alice_password
    await _link(on_person_dev, "carol", who, password)
    end, _ = await agent(harness, "carol", "superset_explore_database")
    assert end is not None and end.status == "completed"
    with as_person(superset_sandbox, who, password) as straight_in:
        theirs = [d["database_name"] for d in straight_in.get("/api/v1/database/").json()["result"]]
    assert [d["name"] for d in end.data["databases"]] == theirs
    assert theirs == ([] if who == "gamma" else ["Sales"])  # gamma: none; alice: her grant's


@pytest.mark.parametrize(
    ("who", "text"),
    [
        # no grant at all: SQL Lab hides the database ("not found")
        ("gamma", REGIONS),
        # a grant on sales only: another table is refused by name
        ("alice", "select name from sqlite_master"),
    ],
)
async def test_rows2_and_3_sql_outside_a_grant_is_refused_in_supersets_own_words(
    harness: Harness, on_person_dev: EnvironmentRegistry, superset_sandbox: Sandbox,
    gamma_password: str, alice_password: str, who: str, text: str,
) -> None:  # fmt: skip
    password = gamma_password if who == "gamma" else alice_password
    await _link(on_person_dev, "carol", who, password)
    end, error = await agent(harness, "carol", "superset_execute_sql", sql=text, database="1")
    with as_person(superset_sandbox, who, password) as straight_in:
        direct = sql(straight_in, text)
    assert direct.status_code == 500
    said = direct.json()["errors"][0]["message"]
    assert end is not None and end.status == "failed" and end.data is None
    assert error is not None and error.refusal is not None
    assert (error.refusal.code, error.refusal.account) == ("superset_denied", who)
    assert error.refusal.reason == said  # Superset's reason, verbatim
    rows = harness.audit_rows(kind="superset_refused")
    assert rows and rows[0]["superset_user"] == who


async def test_row4_her_row_level_rule_filters_charts_and_sql_as_in_superset(
    harness: Harness, on_person_dev: EnvironmentRegistry, superset_sandbox: Sandbox,
    alice_password: str,
) -> None:  # fmt: skip
    await _link(on_person_dev, "carol", "alice", alice_password)
    end, _ = await agent(harness, "carol", "superset_execute_sql", sql=REGIONS, database="Sales")
    health, _ = await agent(harness, "carol", "get_health_summary", dashboard_id="sales-overview")
    with as_person(superset_sandbox, "alice", alice_password) as straight_in:
        direct = sql(straight_in, REGIONS).json()["data"]
        chart = chart_id(straight_in, "Revenue by Region")
        chart_rows = straight_in.get(f"/api/v1/chart/{chart}/data/").json()["result"][0]["data"]
    assert end is not None and [r["region"] for r in end.data["rows"]] == ["North"]
    assert end.data["rows"] == direct
    assert health is not None and health.status == "completed"
    by_name = {c["name"]: c for c in health.data["charts"]}
    assert by_name["Revenue by Region"]["rows"] == len(chart_rows) == 1


async def test_row5_supersets_query_history_names_her(
    harness: Harness, on_person_dev: EnvironmentRegistry, superset_sandbox: Sandbox,
    alice_password: str,
) -> None:  # fmt: skip
    await _link(on_person_dev, "carol", "alice", alice_password)
    marker = f"select count(*) as n_{uuid.uuid4().hex[:8]} from sales"
    end, _ = await agent(harness, "carol", "superset_execute_sql", sql=marker, database="Sales")
    assert end is not None and end.status == "completed"
    ran = [q for q in queries(superset_sandbox) if marker in (q.get("sql") or "")]
    assert [q["user"]["first_name"] for q in ran] == ["Alice"]
    executed = harness.audit_rows(kind="executed")
    assert executed[0]["superset_user"] == "alice" and executed[0]["user"] == "carol"


# ---- refusals ------------------------------------------------------------------------
async def test_a_refused_call_never_reaches_superset(
    harness: Harness, on_person_dev: EnvironmentRegistry, superset_sandbox: Sandbox
) -> None:
    before = [q["id"] for q in queries(superset_sandbox)]
    end, error = await agent(harness, "nolink", "superset_execute_sql", sql=REGIONS,
                             database="Sales")  # fmt: skip
    assert end is None  # the guard refused: the tool never started
    assert error is not None and error.refusal is not None
    assert (error.refusal.code, error.refusal.env_id) == ("account_not_linked", "dev")
    assert [o.kind for o in error.offers] == ["link_account"]
    assert [q["id"] for q in queries(superset_sandbox)] == before  # no query, of anyone


async def test_a_deactivated_account_is_refused_and_nothing_runs_as_another(
    harness: Harness, on_person_dev: EnvironmentRegistry, superset_sandbox: Sandbox
) -> None:
    password = straight.ensure_user(superset_sandbox, "leaver", ["Gamma", "sql_lab"])
    await _link(on_person_dev, "carol", "leaver", password)
    end, _ = await agent(harness, "carol", "superset_explore_database")
    assert end is not None and end.status == "completed"
    before = [q["id"] for q in queries(superset_sandbox)]
    straight.set_active(superset_sandbox, "leaver", False)
    try:
        end, error = await agent(harness, "carol", "superset_execute_sql", sql=REGIONS,
                                 database="1")  # fmt: skip
        again, second = await agent(harness, "carol", "superset_explore_database")
    finally:
        straight.set_active(superset_sandbox, "leaver", True)
    assert error is not None and error.refusal is not None
    assert error.refusal.code == "link_expired"
    assert second is not None and second.refusal is not None
    assert second.refusal.code == "link_expired" and again is None  # the guard, from the row
    assert [q["id"] for q in queries(superset_sandbox)] == before  # nothing ran, as anyone


async def test_two_people_at_once_never_see_each_others_answers(
    harness: Harness, on_person_dev: EnvironmentRegistry, superset_sandbox: Sandbox,
    alice_password: str,
) -> None:  # fmt: skip
    """alice sees the North; ``everyone`` (a grant on sales, no row-level rule) sees all
    four regions. 50 calls interleaved, at once: each answer is its asker's."""
    with straight.admin(superset_sandbox) as s:
        role = s.call("GET", "/api/v1/security/roles/search/", params={"q": "(page_size:100)"})
    assert any(r["name"] == "sales_north" for r in role["result"])
    everyone = straight.ensure_user(superset_sandbox, "everyone", ["Gamma", "sql_lab", "Alpha"])
    await _link(on_person_dev, "carol", "alice", alice_password)
    await _link(on_person_dev, "dave", "everyone", everyone)
    # 50 calls in a burst, several at once: the per-user limits are another test's subject
    harness.configure(user_calls_per_minute=0, user_max_running=0)
    harness.use(real=True)
    asks = ["carol" if i % 2 else "dave" for i in range(50)]
    # a few at a time: the sandbox's Superset keeps its query history in SQLite, which
    # answers "database is locked" when dozens of queries are written at once
    at_once = asyncio.Semaphore(AT_ONCE)

    async def ask(who: str) -> tuple[ToolEndEvent | None, ErrorEvent | None]:
        async with at_once:
            return await agent(harness, who, "superset_execute_sql", sql=REGIONS, database="Sales")

    results = await asyncio.gather(*(ask(who) for who in asks))
    for who, (end, error) in zip(asks, results, strict=True):
        assert error is None and end is not None and end.status == "completed", (who, error)
        regions = [r["region"] for r in end.data["rows"]]
        assert regions == (["North"] if who == "carol" else ["East", "North", "South", "West"])
    rows = harness.audit_rows(kind="executed")
    assert {(r["user"], r["superset_user"]) for r in rows} == {
        ("carol", "alice"),
        ("dave", "everyone"),
    }


async def test_supersets_own_permission_still_applies_to_a_tool_the_role_allows(
    harness: Harness, on_person_dev: EnvironmentRegistry, alice_password: str
) -> None:
    """The permission audit reads Superset's roles: alice may not, so it is refused."""
    await _link(on_person_dev, "carol", "alice", alice_password)
    end, error = await agent(harness, "carol", "superset_audit_permissions", role="admin")
    assert end is not None and end.status == "failed"
    assert error is not None and error.refusal is not None
    assert (error.refusal.code, error.refusal.account) == ("superset_denied", "alice")


async def _backup(harness: Harness, ids: list[str]) -> ToolEndEvent:
    conv = uuid.uuid4().hex
    args = {"env_id": "dev", "dashboard_ids": ids}
    events = await harness.call("run_backup", args, user="carol", role="admin", conv_id=conv)
    card = next(e for e in events if e.type == "confirm_required")
    done = await harness.answer(card.confirmation_id, user="carol", role="admin", conv_id=conv)
    return next(e for e in done if isinstance(e, ToolEndEvent))


async def test_a_long_task_runs_as_the_person_who_started_it(
    harness: Harness, on_person_dev: EnvironmentRegistry, alice_password: str
) -> None:
    """An admin of ss-tools linked as alice backs up dev as alice: a dashboard she sees
    is backed up; one only the service account could see is not found, for her."""
    await _link(on_person_dev, "carol", "alice", alice_password)
    harness.use(real=True)
    end = await _backup(harness, ["sales-overview"])
    assert end.status == "completed", end.error
    assert end.data["note"] == "Sales Overview"
    rows = harness.audit_rows(kind="executed", tool="run_backup")
    assert rows[0]["superset_user"] == "alice"
    hidden = await _backup(harness, ["marketing-funnel"])
    assert hidden.status == "failed" and "not found" in (hidden.error or "")
