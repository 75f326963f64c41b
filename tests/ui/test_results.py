"""Results are shown, not dumped: each presentation inside its tool card, in English and
Russian (NiceGUI user simulation, fake core yielding the real views of real results)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from typing import Any

import pytest
from nicegui import ui
from nicegui.testing import User

from app.events import ToolEndEvent, ToolStartEvent
from app.tools import TOOLS
from app.views import build_view
from components.chat_panel import chat_panel
from tests.fixtures.components import component, feed
from tests.samples import SQL_RESULT
from tests.screen.test_model import make
from tests.ui.fakes import confirm_event, done, message

BASE = "http://superset.test:8088"
NBSP = "\u00a0"


def ran(tool: str, result: dict[str, Any], call_id: str = "c1") -> list[Any]:
    """A completed call as the tool node reports it: start, then the end with its view."""
    found = TOOLS[tool]
    view = build_view(found.spec.presentation, result, superset_url=BASE, builder=found.view)
    return [
        ToolStartEvent(call_id=call_id, tool_name=tool, tool_args={"env_id": "dev"}),
        ToolEndEvent(call_id=call_id, tool_name=tool, status="completed", result="…", view=view),
    ]


@pytest.fixture
async def show() -> AsyncIterator[Callable[[str, dict[str, Any], str], Awaitable[User]]]:
    """``user = await show(tool, result, lang)``: the chat panel alone (a component test)
    on an admin's model in ``lang`` that got ``tool``'s completed call of ``result``; the
    page path (sign-in, send, the core's events) is
    :func:`test_sql_rows_on_the_whole_page`'s."""
    async with AsyncExitStack() as stack:

        async def show(tool: str, result: dict[str, Any], lang: str) -> User:
            model, _, _ = make(lang=lang)
            feed(model, *ran(tool, result), message("ok"), done())
            user = await stack.enter_async_context(component(lambda: chat_panel(model)))
            await user.should_see(marker="tool-result")
            return user

        yield show


@pytest.fixture
def show_on_page(
    user: User, sign_in, core
) -> Callable[[str, dict[str, Any], str], Awaitable[None]]:
    """``show_on_page(tool, result, lang)``: an admin asks on the whole page in ``lang``,
    the fake core answers with ``tool``'s completed call of ``result``; done once the
    result is shown."""

    async def show(tool: str, result: dict[str, Any], lang: str) -> None:
        core.replies = [*ran(tool, result), message("ok"), done()]
        await sign_in("admin", target=f"/agent?lang={lang}")
        user.find(marker="chat-input").type("go").trigger("keydown.enter")
        await user.should_see(marker="tool-result", retries=30)

    return show


def one(user: User, marker: str, kind: type[ui.element] = ui.element) -> Any:
    """The one element marked ``marker`` on the page, a ``kind``."""
    elements = user.find(marker=marker).elements
    assert len(elements) == 1, f"{len(elements)} elements marked {marker}"
    element = next(iter(elements))
    assert isinstance(element, kind), f"{marker} is a {type(element).__name__}"
    return element


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


@pytest.mark.parametrize(("lang", "label"), [("en", "Backup"), ("ru", "Резервная копия")])
async def test_a_delete_shows_its_facts_and_never_the_backup_path(show, lang, label) -> None:
    result = {
        "task_id": "t1",
        "deleted": {"id": 4, "title": "Browser Throwaway"},
        "env_id": "prod",
        "backup_id": "abf0123",
        "backup_path": "/srv/data/backups/prod/x.zip",
        "message": "Deleted … backup abf0123 at /srv/data/backups/prod/x.zip",
    }
    user = await show("delete_dashboard", result, lang)
    await user.should_see(label)
    await user.should_see("abf0123")
    await user.should_not_see("/srv/data")


@pytest.mark.parametrize(("lang", "header"), [("en", "Backup"), ("ru", "Резервная копия")])
async def test_backups_are_a_table(show, lang, header) -> None:
    backups = {"count": 1, "backups": [{"backup_id": "b1", "env_id": "dev", "path": "/srv/b1"}]}
    user = await show("list_backups", backups, lang)
    table = one(user, "result-table", ui.table)
    assert table.columns[0]["label"] == header
    assert all("/srv" not in str(v) for row in table.rows for v in row.values())


@pytest.mark.parametrize(("lang", "state"), [("en", "running"), ("ru", "выполняется")])
async def test_tasks_show_their_state_and_progress(show, lang, state) -> None:
    task = {"task_id": "93ff0a1b", "kind": "migration", "status": "running", "step": 1, "total": 4}
    user = await show("get_task_status", {"task": task}, lang)
    with user.scope(marker="result-tasks"):
        await user.should_see(state)
        await user.should_see("1/4")
        await user.should_see(kind=ui.linear_progress)


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


# the task store's states: (English, Russian), the chip's colour
TASK_STATES = {
    "queued": ("queued", "в очереди", "gray"),
    "succeeded": ("finished", "завершена", "green"),
    "failed": ("failed", "ошибка", "red"),
    "interrupted": ("interrupted", "прервана", "amber"),
}


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize("status", list(TASK_STATES))
async def test_a_tasks_state_is_the_stores_own_in_the_pages_language(show, lang, status) -> None:
    en, ru, tone = TASK_STATES[status]
    state = ru if lang == "ru" else en
    """The task store's states (queued, running, succeeded, failed, interrupted), each in
    the page's language and its colour; a finished task's last message ("done") is not
    repeated under it."""
    task = {
        "task_id": "93ff0a1b",
        "kind": "backup",
        "status": status,
        "step": 2,
        "total": 2,
        "message": "done",
    }
    user = await show("get_task_status", {"task": task}, lang)
    with user.scope(marker="result-tasks"):
        await user.should_see(state)
        if status != "queued":  # a queued task still shows its progress and message
            await user.should_not_see("done")
            await user.should_not_see(kind=ui.linear_progress)
    chip = next(
        el
        for el in user.find(marker="result-tasks").elements.pop().descendants()
        if isinstance(el, ui.label) and el.text == state
    )
    assert any(c.startswith(f"bg-{tone}-") for c in chip.classes), chip.classes


DEPLOYED = {
    "source_env": "dev",
    "target_env": "prod",
    "dashboards": [{"title": "Sales", "action": "overwritten", "target_id": 12}],
    "charts": {"overwrite": 3},
}


@pytest.mark.parametrize(("lang", "action"), [("en", "overwrite"), ("ru", "перезаписать")])
async def test_a_deploy_shows_what_changed_as_a_diff(show, lang, action):
    user = await show("deploy_dashboard", DEPLOYED, lang)
    with user.scope(marker="diff-table"):
        await user.should_see("Sales")
        await user.should_see(action)
        await user.should_see("prod")


PREFLIGHT = {
    "source_env": "dev",
    "target_env": "prod",
    "dashboards": [{"name": "Sales", "uuid": "u1", "action": "overwrite"}],
    "charts": [{"name": "Revenue", "uuid": "u2", "action": "create"}],
    "datasets": [],
    "databases": [],
    "errors": [],
}


@pytest.mark.parametrize(
    ("lang", "title", "create"),
    [("en", "What will change", "create"), ("ru", "Что изменится", "создать")],
)
async def test_the_confirmation_card_shows_the_preflight_as_a_diff_table(
    user: User, core, sign_in, lang, title, create
) -> None:
    core.replies = [
        confirm_event("write_prod", env="prod", details=PREFLIGHT),
        done("awaiting_confirmation"),
    ]
    await sign_in("admin", target=f"/agent?lang={lang}")
    user.find(marker="chat-input").type("deploy").trigger("keydown.enter")
    await user.should_see(marker="confirmation-card", retries=30)
    with user.scope(marker="preflight-diff"):
        await user.should_see(title + ": dev → prod")
        await user.should_see("Revenue")
        await user.should_see(create)
    await user.should_not_see(marker="confirm-details")  # no JSON dump of the same


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
