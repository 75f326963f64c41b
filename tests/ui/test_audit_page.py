"""/audit: admins see and filter the audit rows and export CSV; analysts get a 403 page."""

from __future__ import annotations

from typing import Any

from nicegui import ui
from nicegui.testing import User

from app.parts import Parts
from app.store.audit_log import record_audit
from tests.waiting import WAIT_S

# (kind, user, role, tool, env, decision, what else the row says)
AUDIT_ROWS: list[tuple[str, str, str, str, str, str, dict[str, Any]]] = [
    ("executed", "alice", "admin", "deploy_dashboard", "prod", "allow",
     {"args": {"dashboard_id": "42"}, "channel": "mcp", "client": "claude-code",
      "conv_id": "c-mcp-1"}),
    ("denied", "bob", "analyst", "deploy_dashboard", "prod", "deny",
     {"reason": "admin role required"}),
    ("executed", "bob", "analyst", "search_dashboards", "dev", "allow", {}),
]  # fmt: skip
COLUMNS = ("kind", "user", "role", "tool", "env", "decision")


def seed_audit(app_parts: Parts) -> None:
    with app_parts.db.session() as session:
        for *values, more in AUDIT_ROWS:
            record_audit(session, **dict(zip(COLUMNS, values, strict=True)), **more)


async def test_analyst_gets_a_clear_403_on_audit(user: User, core, sign_in) -> None:
    await sign_in("analyst")
    response = await user.http_client.get("/audit")
    assert response.status_code == 403
    assert "Admins only" in response.text
    csv = await user.http_client.get("/api/audit.csv")
    assert csv.status_code == 403


async def test_analyst_403_page_in_russian(user: User, core, sign_in) -> None:
    await sign_in("analyst")
    response = await user.http_client.get("/audit?lang=ru")
    assert response.status_code == 403
    assert "Только для администраторов" in response.text


async def test_unauthenticated_audit_goes_to_login(user: User, core) -> None:
    await user.open("/audit")
    await user.should_see(marker="sign-in")


async def test_admin_sees_rows_and_can_filter(user: User, core, sign_in, app_parts: Parts) -> None:
    await sign_in("admin")
    seed_audit(app_parts)
    await user.open("/audit")
    table = user.find(marker="audit-table").elements.pop()
    users = {row["user"] for row in table.rows}
    assert {"alice", "bob"} <= users
    user.find(marker="filter-user").type("bob")
    user.find(marker="filter-decision").elements.pop().set_value("deny")
    user.find(kind=ui.button, marker="apply-filters").click()
    await user.should_see("1 rows", retries=30)
    assert [(r["user"], r["decision"], r["tool"]) for r in table.rows] == [
        ("bob", "deny", "deploy_dashboard")
    ]


async def test_admin_exports_filtered_rows_as_csv(
    user: User, core, sign_in, app_parts: Parts
) -> None:
    await sign_in("admin")
    seed_audit(app_parts)
    response = await user.http_client.get("/api/audit.csv", params={"env": "prod"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    lines = response.text.strip().splitlines()
    assert lines[0].startswith("ts,user,role,kind,tool,env,decision")
    assert lines[0].endswith(",channel,client,conv_id")  # the door each decision came through
    assert len(lines) == 3 and all(",prod," in line for line in lines[1:])
    assert any(line.endswith(",mcp,claude-code,c-mcp-1") for line in lines[1:])


async def test_bad_date_filter_is_explained_inline(user: User, core, sign_in) -> None:
    await sign_in("admin")
    await user.open("/audit")
    user.find(marker="filter-since").type("yesterday")
    user.find(kind=ui.button, marker="apply-filters").click()
    await user.should_see("Dates look like 2026-01-31", retries=30)


async def test_export_button_downloads_the_filtered_csv(
    user: User, core, sign_in, app_parts: Parts
) -> None:
    await sign_in("admin")
    seed_audit(app_parts)
    await user.open("/audit")
    user.find(marker="filter-env").type("dev")
    user.find(kind=ui.button, marker="export-csv").click()
    response = await user.download.next(timeout=WAIT_S)
    assert response.status_code == 200
    rows = response.text.strip().splitlines()[1:]
    assert len(rows) == 1 and "search_dashboards" in rows[0]


# ---- the app's shell, server-side pages, filters in the URL, folded args ----------------
async def test_audit_pages_on_the_server_and_keeps_filters_in_the_url(
    user: User, core, sign_in, parts: Parts
) -> None:
    from app.pages.audit import PAGE_SIZE, fetch_page

    await sign_in("admin")
    with parts.db.session() as session:
        for i in range(PAGE_SIZE + 7):
            record_audit(session, kind="executed", user="pager", role="admin",
                         tool="search_dashboards", env="dev", decision="allow",
                         args={"query": f"q{i}"})  # fmt: skip
    rows, total = fetch_page(parts.db, {"user": "pager"}, 2)
    assert total == PAGE_SIZE + 7 and len(rows) == 7  # one page read, not the whole table
    await user.open("/audit?user=pager&page=2")  # a shared link: its filter and its page
    await user.should_see(f"{PAGE_SIZE + 7} rows", retries=30)
    await user.should_see("Page 2 of 2")
    table = user.find(marker="audit-table").elements.pop()
    assert len(table.rows) == 7 and {r["user"] for r in table.rows} == {"pager"}
    assert user.find(marker="filter-user").elements.pop().value == "pager"
    user.find(kind=ui.button, marker="audit-previous").click()
    await user.should_see("Page 1 of 2", retries=30)
    assert len(table.rows) == PAGE_SIZE
    # each row unfolds into its arguments (a name/value table; tests/ui/test_audit_shell.py)
    assert all([a["name"] for a in r["arg_rows"]] == ["query"] for r in table.rows)
    await user.should_see(marker="page-title")  # the app's header
    await user.should_see("Sign out")
