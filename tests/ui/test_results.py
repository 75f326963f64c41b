"""Results are shown, not dumped: each presentation inside its tool card, in English and
Russian (NiceGUI user simulation, fake core yielding the real views of real results):
SQL rows, dashboards, health, backups, findings and risks, environments and permissions,
formatted SQL and documentation."""

from __future__ import annotations

import pytest
from nicegui import ui
from nicegui.testing import User

from tests.samples import SQL_RESULT
from tests.ui.result_views import BASE, NBSP, one


@pytest.mark.parametrize(
    ("lang", "east", "count"),
    [("en", "59,849.79", "2 rows"), ("ru", f"59{NBSP}849,79", "Строк: 2")],
)
async def test_sql_rows_are_a_sortable_table_with_numbers_in_the_page_language(
    show, lang, east, count
) -> None:
    user = await show("superset_execute_sql", SQL_RESULT, lang)
    table = one(user, "result-table", ui.table)
    assert [c["label"] for c in table.columns] == ["region", "total"]
    assert all(c["sortable"] for c in table.columns)
    assert [r["c1__shown"] for r in table.rows] == [
        east,
        "1" + ("," if lang == "en" else NBSP) + "200",
    ]
    assert table.rows[0]["c1"] == 59849.78999999998  # sorted by the raw number
    await user.should_see(count)
    user.find(marker="download-csv").click()
    csv = (await user.download.next()).text
    assert csv.splitlines() == ["region,total", "East,59849.78999999998", "North,1200"]


async def test_sql_rows_on_the_whole_page(user: User, show_on_page) -> None:
    """The page path of every result test here: signed in, a message sent, the core's
    events streamed into the tool card (the rest are component tests of the panel)."""
    await show_on_page("superset_execute_sql", SQL_RESULT, "en")
    table = one(user, "result-table", ui.table)
    assert [r["c1__shown"] for r in table.rows] == ["59,849.79", "1,200"]
    await user.should_see("2 rows")


async def test_a_truncated_result_says_so(show) -> None:
    user = await show("superset_execute_sql", {**SQL_RESULT, "truncated": True}, "en")
    await user.should_see("2 rows (truncated: the query returned more)")


@pytest.mark.parametrize(
    ("lang", "sentence"),
    [
        (
            "en",
            "Cut to stay within the result limits: 37 more rows not shown; 3 long values "
            "shortened to 1000 characters. The CSV download holds the same.",
        ),
        (
            "ru",
            "Результат обрезан по ограничениям: не показано строк: 37; длинных значений "
            "сокращено до 1000 символов: 3. CSV содержит то же самое.",
        ),
    ],
)
async def test_a_result_cut_by_the_caps_says_so_on_its_card(show, lang: str, sentence: str) -> None:
    cut = {"rows": 37, "cells": 3, "cell_chars": 1000}
    user = await show("superset_execute_sql", {**SQL_RESULT, "cut": cut}, lang)
    await user.should_see(sentence, marker="result-cut")


DASHBOARDS = {
    "env": "dev",
    "count": 2,
    "dashboards": [
        {
            "id": 7,
            "title": "Sales demo",
            "changed_on": "2026-01-02T03:04:05",
            "owners": ["Ann Lee"],
        },
        {"id": 9, "title": "<b>Ops</b>", "url": "javascript:alert(1)"},
    ],
}


@pytest.mark.parametrize(
    ("lang", "owners"), [("en", "Owners: Ann Lee"), ("ru", "Владельцы: Ann Lee")]
)
async def test_dashboards_are_titles_linking_to_their_superset_in_a_new_tab(
    show, lang, owners
) -> None:
    user = await show("search_dashboards", DASHBOARDS, lang)
    links = {link.text: link.props for link in user.find(marker="superset-link").elements}
    assert links["Sales demo"]["href"] == f"{BASE}/superset/dashboard/7/"
    assert links["Sales demo"]["target"] == "_blank"
    assert links["<b>Ops</b>"]["href"] == f"{BASE}/superset/dashboard/9/"  # text, our URL
    await user.should_see(f"#7 · {owners}")


HEALTH = {
    "env": "dev",
    "dashboard": {"id": 9, "title": "Ops"},
    "verdict": "broken",
    "charts": [
        {"id": 1, "name": "Fine", "status": "ok"},
        {"id": 3, "name": "Revenue", "status": "error", "error": "HTTP 500"},
    ],
    "stale_datasets": [],
}


@pytest.mark.parametrize(
    ("lang", "labels", "verdict"),
    [
        ("en", ["ok", "failing", "slow", "stale"], "broken"),
        ("ru", ["в порядке", "с ошибкой", "медленные", "устаревшие"], "сломан"),
    ],
)
async def test_health_is_a_chart_by_status_with_the_failing_listed(
    show, lang, labels, verdict
) -> None:
    user = await show("get_health_summary", HEALTH, lang)
    chart = one(user, "health-chart", ui.echart)
    assert chart.options["xAxis"]["data"] == labels
    assert [d["value"] for d in chart.options["series"][0]["data"]] == [1, 1, 0, 0]
    await user.should_see(verdict)
    await user.should_see("HTTP 500")
    hrefs = [link.props["href"] for link in user.find(marker="superset-link").elements]
    assert f"{BASE}/explore/?slice_id=3" in hrefs


@pytest.mark.parametrize(("lang", "header"), [("en", "Backup"), ("ru", "Резервная копия")])
async def test_backups_are_a_table(show, lang, header) -> None:
    backups = {"count": 1, "backups": [{"backup_id": "b1", "env_id": "dev", "path": "/srv/b1"}]}
    user = await show("list_backups", backups, lang)
    table = one(user, "result-table", ui.table)
    assert table.columns[0]["label"] == header
    assert all("/srv" not in str(v) for row in table.rows for v in row.values())


@pytest.mark.parametrize(
    ("lang", "words"), [("en", ["warning", "info"]), ("ru", ["предупреждение", "замечание"])]
)
async def test_a_findings_severity_is_said_in_the_pages_language(show, lang, words) -> None:
    findings = [
        {"severity": "warning", "object": "dashboard 5", "issue": "no description"},
        {"severity": "info", "object": "chart 2", "issue": "no description"},
    ]
    user = await show("run_llm_validation", {"findings": findings, "counts": {}}, lang)
    table = one(user, "result-table", ui.table)
    assert [row["c0__shown"] for row in table.rows] == words
    assert [row["c0"] for row in table.rows] == ["warning", "info"]  # sorted on the codes


async def test_a_tools_risk_is_said_in_russian_on_the_russian_page(show) -> None:
    groups = {
        "dashboards": [{"name": "delete_dashboard", "risk": "delete", "description": "x"}],
        "meta": [{"name": "show_capabilities", "risk": "read", "description": "y"}],
    }
    user = await show("show_capabilities", {"count": 2, "groups": groups}, "ru")
    table = one(user, "result-table", ui.table)
    assert [row["c2__shown"] for row in table.rows] == ["удаление", "чтение"]
    # Quasar's pagination words in Russian too, not its English defaults
    assert table.props["rows-per-page-label"] == "Строк на странице:"
    assert table.props[":pagination-label"].endswith('+ " из " + total')


async def test_formatted_sql_is_a_code_block(show) -> None:
    user = await show("superset_format_sql", {"sql": "SELECT\n  1"}, "en")
    code = one(user, "tool-result")
    assert any(isinstance(e, ui.code) for e in code.descendants())


ENVIRONMENTS = {
    "environments": [
        {"id": "dev", "name": "Development", "tier": "dev", "url": "http://dev:8088",
         "reachable": True, "in_maintenance": False},
        {"id": "prod", "name": "Production", "tier": "prod", "url": "javascript:alert(1)",
         "reachable": None, "in_maintenance": True},
    ],
    "selected": "dev",
}  # fmt: skip
ROLES = {
    "env": "dev",
    "roles": [{"id": 1, "name": "Gamma", "permission_count": 42, "users": ["ann", "bob"],
               "flags": ["all_database_access on all_database_access: reads every database"]}],
}  # fmt: skip


@pytest.mark.parametrize(
    ("lang", "tool", "result", "headers", "first_row"),
    [
        ("en", "list_environments", ENVIRONMENTS,
         ["Id", "Name", "Tier", "URL", "Reachable", "Maintenance"],
         ["dev", "Development", "dev", "http://dev:8088", "yes", "no"]),
        ("ru", "list_environments", ENVIRONMENTS,
         ["Id", "Имя", "Уровень", "URL", "Доступно", "Обслуживание"],
         ["dev", "Development", "dev", "http://dev:8088", "да", "нет"]),
        ("en", "superset_audit_permissions", ROLES,
         ["Name", "Permissions", "Users", "Over-broad grants"],
         ["Gamma", "42", "ann, bob",
          "all_database_access on all_database_access: reads every database"]),
        ("ru", "superset_audit_permissions", ROLES,
         ["Имя", "Права", "Пользователи", "Слишком широкие права"],
         ["Gamma", "42", "ann, bob",
          "all_database_access on all_database_access: reads every database"]),
    ],
)  # fmt: skip
async def test_environments_and_permissions_are_tables_in_the_page_language(
    show, lang, tool, result, headers, first_row
) -> None:
    user = await show(tool, result, lang)
    table = one(user, "result-table", ui.table)
    assert [c["label"] for c in table.columns] == headers
    shown = [table.rows[0][f"c{i}__shown"] for i in range(len(headers))]
    assert shown == first_row
    if tool == "list_environments":  # a URL that is not http(s) is never a link
        assert table.rows[1]["c3"] is None


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_documentation_is_rendered_markdown(show, lang) -> None:
    doc = {"markdown": "# Sales\nCharts:\n- Revenue\n- Units\n\n<script>x</script>"}
    user = await show("run_llm_documentation", doc, lang)
    box = one(user, "tool-result")
    html = "".join(e.props.get("innerHTML", "") for e in box.descendants())
    assert html.count("<li>") == 2 and "<script>" not in html
