"""Tool results become typed views: tables, linked lists, health, facts, tasks, diffs —
with links into the environment's own Superset and never an internal file path."""

from __future__ import annotations

import json

import pytest

from app import views
from app.events import ToolEndEvent, encode_sse, parse_event
from app.tools import TOOLS

BASE = "http://superset.dev:8088"


def view_of(tool: str, result: object):
    found = TOOLS[tool]
    return views.build_view(found.spec.presentation, result, superset_url=BASE, builder=found.view)


def test_sql_rows_become_a_table_with_raw_numbers_row_count_and_truncation() -> None:
    view = view_of(
        "superset_execute_sql",
        {
            "env": "dev",
            "columns": ["region", "total"],
            "rows": [{"region": "East", "total": 59849.78999999998}, {"region": "North"}],
            "row_count": 2,
            "truncated": True,
        },
    )
    assert isinstance(view, views.TableView)
    assert [c.label for c in view.columns] == ["region", "total"]
    assert [c.numeric for c in view.columns] == [False, True]
    assert view.rows == [["East", 59849.78999999998], ["North", None]]
    assert (view.row_count, view.truncated) == (2, True)


def test_dashboards_link_into_their_superset_built_from_the_id_not_superset_data() -> None:
    view = view_of(
        "search_dashboards",
        {
            "env": "dev",
            "count": 1,
            "dashboards": [
                {
                    "id": 7,
                    "title": "Sales <b>demo</b>",
                    "slug": "sales",
                    "url": "javascript:alert(1)",
                    "changed_on": "2026-01-02T03:04:05",
                    "owners": [{"first_name": "Ann", "last_name": "Lee"}],
                }
            ],
        },
    )
    assert isinstance(view, views.LinkedListView)
    item = view.items[0]
    assert item.url == f"{BASE}/superset/dashboard/7/"
    assert item.title == "Sales <b>demo</b>"  # data: the page renders it as text
    assert {d.key: d.value for d in item.details} == {
        "owners": "Ann Lee",
        "changed_at": "2026-01-02T03:04:05",
        "slug": "sales",
    }


def test_without_a_superset_url_there_are_no_links() -> None:
    builder = TOOLS["search_dashboards"].view
    view = views.build_view("linked_list", {"dashboards": [{"id": 3}]}, builder=builder)
    assert isinstance(view, views.LinkedListView) and view.items[0].url is None


def test_health_counts_charts_by_status_and_lists_the_failing_first() -> None:
    view = view_of(
        "get_health_summary",
        {
            "env": "dev",
            "dashboard": {"id": 9, "title": "Ops"},
            "verdict": "broken",
            "charts": [
                {"id": 1, "name": "Fine", "status": "ok", "ms": 20},
                {"id": 2, "name": "Slowpoke", "status": "ok", "ms": 4100, "slow": True},
                {"id": 3, "name": "Broken", "status": "error", "error": "HTTP 500"},
                {"id": 4, "name": "Empty", "status": "empty"},
            ],
            "stale_datasets": [{"id": 5, "name": "old", "changed_on": "2020-01-01"}],
        },
    )
    assert isinstance(view, views.HealthView)
    assert view.counts == {
        "ok": 1,
        "failing": 1,
        "slow": 1,
        "stale": 1,
        "empty": 1,
        "unchecked": 0,
    }
    assert [(p.name, p.status) for p in view.problems][:2] == [
        ("Broken", "failing"),
        ("Slowpoke", "slow"),
    ]
    assert view.problems[0].reason == "HTTP 500"
    assert view.problems[0].url == f"{BASE}/explore/?slice_id=3"
    assert view.dashboard.url == f"{BASE}/superset/dashboard/9/"


def test_a_delete_shows_facts_without_the_backup_path() -> None:
    result = {
        "task_id": "t1",
        "deleted": {"id": 4, "title": "Browser Throwaway", "slug": None},
        "env_id": "prod",
        "backup_id": "abf0123",
        "backup_path": "/srv/data/backups/prod/x.zip",
        "message": "Deleted 'Browser Throwaway' from prod; backup abf0123 at /srv/data/x.zip",
    }
    view = view_of("delete_dashboard", result)
    assert isinstance(view, views.FactsView)
    assert {f.key: f.value for f in view.facts} == {
        "deleted": "Browser Throwaway",
        "dashboard_id": 4,
        "env_id": "prod",
        "backup_id": "abf0123",
        "task_id": "t1",
    }
    assert "/srv" not in view.model_dump_json()


def test_backups_are_a_table_without_paths() -> None:
    backup = {
        "backup_id": "b1",
        "env_id": "dev",
        "dashboards": ["7", "sales"],
        "path": "/srv/b1.zip",
        "size_bytes": 2048,
        "note": "saved to /srv/data/b1.zip",
    }
    view = view_of("list_backups", {"count": 1, "backups": [backup]})
    assert isinstance(view, views.TableView)
    assert "path" not in [c.key for c in view.columns]
    assert "/srv" not in view.model_dump_json()
    assert view.rows[0][:3] == ["b1", "dev", "7, sales"]


def test_task_status_is_a_tasks_view() -> None:
    task = {"task_id": "93ff", "kind": "delete", "status": "running", "step": 2, "total": 3}
    view = view_of("get_task_status", {"task": task})
    assert isinstance(view, views.TasksView)
    assert view.tasks[0].model_dump(include={"task_id", "status", "step", "total"}) == {
        "task_id": "93ff",
        "status": "running",
        "step": 2,
        "total": 3,
    }


PREFLIGHT = {
    "source_env": "dev",
    "target_env": "prod",
    "dashboards": [{"name": "Sales", "uuid": "u1", "action": "overwrite"}],
    "charts": [{"name": "Revenue", "uuid": "u2", "action": "create"}],
    "datasets": [{"name": "orders", "uuid": "u3", "action": "keep"}],
    "databases": [{"name": "examples", "uuid": "u4", "action": "map"}],
    "database_mapping": {"examples": "warehouse"},
    "errors": [],
    "summary": "dev → prod: …",
}


def test_a_preflight_becomes_a_diff_of_every_object_with_its_action_and_target() -> None:
    view = views.preflight_view(PREFLIGHT)
    assert isinstance(view, views.DiffView)
    assert [(r.object_type, r.name, r.action, r.target) for r in view.rows] == [
        ("dashboard", "Sales", "overwrite", "prod"),
        ("chart", "Revenue", "create", "prod"),
        ("dataset", "orders", "keep", "prod"),
        ("database", "examples → warehouse", "map", "prod"),
    ]


def test_details_that_are_not_a_preflight_have_no_diff() -> None:
    assert views.preflight_view({"sql_risk": "write: UPDATE"}) is None
    assert views.preflight_view(None) is None


def test_a_finished_deploy_is_a_diff_linking_the_target_dashboard() -> None:
    result = {
        "source_env": "dev",
        "target_env": "prod",
        "dashboards": [
            {"title": "Sales", "action": "overwritten", "target_id": 12, "url": "http://evil/x"}
        ],
        "charts": {"overwrite": 3},
        "datasets": {"create": 1},
    }
    view = view_of("deploy_dashboard", result)
    assert isinstance(view, views.DiffView)
    assert view.rows[0].action == "overwrite"
    assert view.rows[0].url == f"{BASE}/superset/dashboard/12/"
    assert view.counts == {"chart": {"overwrite": 3}, "dataset": {"create": 1}}


def test_formatted_sql_is_code_and_documentation_is_markdown() -> None:
    sql = view_of("superset_format_sql", {"sql": "SELECT\n  1"})
    doc = view_of("run_llm_documentation", {"markdown": "# Sales\n\n- a"})
    assert isinstance(sql, views.TextView) and (sql.format, sql.language) == ("code", "sql")
    assert isinstance(doc, views.TextView) and doc.format == "markdown"


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_every_tool_gets_a_view_or_none_from_an_empty_result(tool: str) -> None:
    view = view_of(tool, {})
    assert view is None or view.kind in (
        "table",
        "linked_list",
        "health",
        "facts",
        "tasks",
        "diff",
        "text",
    )


def test_the_view_travels_on_tool_end_and_round_trips_through_sse() -> None:
    view = view_of("superset_execute_sql", {"columns": ["n"], "rows": [{"n": 3}]})
    event = ToolEndEvent(
        call_id="c", tool_name="superset_execute_sql", status="completed", result="n: 3", view=view
    )
    frame = encode_sse(event)
    data = json.loads(frame.split("data: ", 1)[1])
    assert data["result"] == "n: 3" and data["view"]["kind"] == "table"
    back = parse_event(data)
    assert isinstance(back, ToolEndEvent) and back.view == view
    assert views.parse_view(data["view"]) == view


def test_an_old_tool_end_frame_without_a_view_still_parses() -> None:
    old = {"type": "tool_end", "call_id": "c", "tool_name": "x", "status": "completed"}
    event = parse_event(old)
    assert isinstance(event, ToolEndEvent) and event.view is None
