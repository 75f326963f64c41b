"""The dashboard tools against a scripted Superset (no network): a health report that
finds the broken chart (and does not blame one when Superset is down), its verdict and
reasons in the turn's language, the rule-based validation's findings and the generated
documentation."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from app.errors import SupersetUnavailableError
from app.parts import Parts
from app.superset.health import ChartCheck, verdict
from tests.superset.fake import FakeSuperset
from tests.superset.tool_calls import call, deps_for


def dashboard_fake(chart_data: dict[int, Any]) -> FakeSuperset:
    """One dashboard (id 5) with two charts on dataset 1, plus an unused dataset 2."""
    fake = FakeSuperset()
    fake.route("GET", "/api/v1/dashboard/sales", {"result": {"id": 5, "dashboard_title": "Sales"}})
    charts = [
        {"id": 1, "slice_name": "Revenue", "form_data": {"datasource": "1__table"}},
        {"id": 2, "slice_name": "Refunds", "form_data": {"datasource": "1__table"}},
    ]
    fake.route("GET", "/api/v1/dashboard/5/charts", {"result": charts})
    datasets = [{"id": 1, "table_name": "sales"}, {"id": 2, "table_name": "unused"}]
    fake.route("GET", "/api/v1/dashboard/5/datasets", {"result": datasets})
    for cid in (1, 2):
        qc = '{"queries": []}' if cid in chart_data else None
        detail = {"id": cid, "viz_type": "table", "query_context": qc, "description": ""}
        fake.route("GET", f"/api/v1/chart/{cid}", {"result": detail})
    for cid, reply in chart_data.items():
        fake.route("GET", f"/api/v1/chart/{cid}/data/", reply)
    for did in (1, 2):
        ds = {"id": did, "table_name": "x", "changed_on": "2020-01-01T00:00:00"}
        fake.route("GET", f"/api/v1/dataset/{did}", {"result": ds})
    return fake


def rows(n: int) -> dict[str, Any]:
    return {"result": [{"rowcount": n, "data": [{}] * n}]}


async def test_health_finds_the_broken_chart_and_says_broken(parts: Parts) -> None:
    broken = httpx.Response(400, json={"errors": [{"message": "no such column: refund"}]})
    fake = dashboard_fake({1: rows(3), 2: lambda r: broken})
    out = await call("get_health_summary", deps_for(parts, fake), dashboard_id="sales")
    assert out["verdict"] == "broken"
    assert any("'Refunds' (id 2) fails" in r and "no such column" in r for r in out["reasons"])
    statuses = {c["id"]: c["status"] for c in out["charts"]}
    assert statuses == {1: "ok", 2: "error"}
    assert out["stale_datasets"]  # changed in 2020: stale


async def test_health_does_not_blame_a_chart_when_superset_is_down(parts: Parts) -> None:
    fake = dashboard_fake({1: rows(3), 2: lambda r: httpx.Response(502, text="bad gateway")})
    with pytest.raises(SupersetUnavailableError):
        await call("get_health_summary", deps_for(parts, fake), dashboard_id="sales")


@pytest.mark.parametrize(
    ("checks", "stale", "expected"),
    [
        # every chart returns rows, nothing stale
        ([ChartCheck(1, "a", "ok", rows=2)], [], "ok"),
        # an empty chart is a warning
        ([ChartCheck(1, "a", "empty", rows=0)], [], "warning"),
        # a chart that cannot be checked is a warning, not ok
        ([ChartCheck(1, "a", "unchecked")], [], "warning"),
        # a slow chart is a warning
        ([ChartCheck(1, "a", "ok", rows=1, ms=9000.0, slow=True)], [], "warning"),
        # a stale dataset is a warning
        ([ChartCheck(1, "a", "ok", rows=1)], [{"name": "s", "changed_on": "2020"}], "warning"),
        # one failing chart makes the dashboard broken, whatever else is true
        ([ChartCheck(1, "a", "ok", rows=1), ChartCheck(2, "b", "error", error="x")], [], "broken"),
        # no charts at all: nothing to trust
        ([], [], "warning"),
    ],
)
def test_health_verdict(
    checks: list[ChartCheck], stale: list[dict[str, Any]], expected: str
) -> None:
    report = verdict(checks, stale)
    assert report.verdict == expected
    assert (report.reasons == []) == (expected == "ok")
    said_ru = verdict(checks, stale, "ru")  # the same reasons, in Russian on a Russian turn
    assert said_ru.verdict == expected and len(said_ru.reasons) == len(report.reasons)


def test_health_reasons_are_said_in_the_turns_language() -> None:
    checks = [ChartCheck(2, "Refunds", "error", error="no column"), ChartCheck(3, "Q", "empty")]
    assert verdict(checks, []).reasons == [
        "chart 'Refunds' (id 2) fails: no column",
        "chart 'Q' (id 3) returns no rows",
    ]
    assert verdict(checks, [], "ru").reasons == [
        "график «Refunds» (id 2) не загружается: no column",
        "график «Q» (id 3) не возвращает строк",
    ]


async def test_validation_runs_rules_and_says_the_model_review_is_not_configured(
    parts: Parts,
) -> None:
    fake = dashboard_fake({1: rows(1)})  # chart 2 has no saved query context
    out = await call("run_llm_validation", deps_for(parts, fake), dashboard_id="sales")
    assert out["checks_run"] == ["rules"]
    assert out["model_review"] == "not configured (offline planner)"
    issues = [(f["object"], f["issue"]) for f in out["findings"]]
    assert (
        "chart 'Refunds' (id 2)",
        "chart has no saved query context (re-save it in Superset)",
    ) in issues
    assert ("dataset 'unused' (id 2)", "not used by any chart here") in issues
    assert ("dashboard 5", "dashboard has no description (no markdown text block)") in issues
    # on a Russian turn the same findings are said in Russian; their severity stays a code
    ru = await call("run_llm_validation", deps_for(parts, fake, lang="ru"), dashboard_id="sales")
    said = [(f["severity"], f["object"], f["issue"]) for f in ru["findings"]]
    assert (
        "warning",
        "график «Refunds» (id 2)",
        "у графика нет сохранённого запроса (пересохраните его в Superset)",
    ) in said
    assert ("info", "датасет «unused» (id 2)", "не используется ни одним графиком здесь") in said
    assert ru["counts"] == out["counts"]


async def test_documentation_lists_charts_datasets_columns_and_metrics(parts: Parts) -> None:
    fake = dashboard_fake({1: rows(1)})
    ds = {
        "id": 1,
        "table_name": "sales",
        "schema": "main",
        "database": {"database_name": "Sales"},
        "columns": [{"column_name": "amount", "type": "REAL"}],
        "metrics": [{"metric_name": "revenue", "expression": "SUM(amount)"}],
    }
    fake.route("GET", "/api/v1/dataset/1", {"result": ds})
    out = await call("run_llm_documentation", deps_for(parts, fake), dashboard_id="sales")
    md = out["markdown"]
    assert md.startswith("# Sales\n")
    assert "| Revenue | table | sales |" in md
    assert "### sales" in md and "| amount | REAL |" in md and "| revenue | `SUM(amount)` |" in md
