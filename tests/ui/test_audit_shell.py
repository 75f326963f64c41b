"""/audit in the app's shell: the same header and conversation drawer as /agent, a row
that unfolds into its arguments as a name/value table, and a link to the conversation
that made it (the chat for one's own; another person's is its audit trail)."""

from __future__ import annotations

from typing import Any

import pytest
from nicegui import ui
from nicegui.testing import User

from app.pages.audit_rows import arg_rows, conversation_target, fetch_rows
from app.parts import Parts
from app.store import conversations
from app.store.audit_log import record_audit


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # a text or a number as written, one pair per argument
        ({"dashboard_id": "42", "env_id": "prod"}, [("dashboard_id", "42"), ("env_id", "prod")]),
        ({"page_size": 25}, [("page_size", "25")]),
        # anything nested as indented JSON, never a one-line dump
        ({"ids": ["1", "2"]}, [("ids", '[\n  "1",\n  "2"\n]')]),
        ({"mapping": {"a": "b"}}, [("mapping", '{\n  "a": "b"\n}')]),
        # text in other scripts stays readable (no \u escapes)
        ({"title": "Продажи"}, [("title", "Продажи")]),
        # a row without arguments unfolds nothing
        (None, []),
        # arguments that are not an object: one pair
        (["x"], [("value", '[\n  "x"\n]')]),
    ],
)
def test_arguments_unfold_as_name_value_pairs(args: Any, expected: list[tuple[str, str]]) -> None:
    assert [(r["name"], r["value"]) for r in arg_rows(args)] == expected


def test_a_very_long_value_is_cut_and_says_so() -> None:
    (row,) = arg_rows({"sql": "x" * 5000})
    assert len(row["value"]) < 2100 and row["value"].endswith(" …")


@pytest.mark.parametrize(
    ("conv_id", "row_user", "target"),
    [
        # the viewer's own conversation opens in the chat
        ("c-1", "ops", "/agent?conv=c-1"),
        # another person's: its trail of audit rows (the chat shows only one's own)
        ("c-2", "alice", "/audit?conv=c-2"),
        # the id is a query value, never a path or a script
        ("a&b=<x>", "ops", "/agent?conv=a%26b%3D%3Cx%3E"),
        # a row of no conversation links nowhere
        (None, "ops", ""),
    ],
)
def test_a_rows_conversation_link(conv_id: str | None, row_user: str, target: str) -> None:
    assert conversation_target(conv_id, row_user, "ops") == target


def _seed(parts: Parts, viewer: str) -> None:
    with parts.db.session() as session:
        record_audit(session, kind="executed", user=viewer, role="admin", tool="delete_dashboard",
                     env="dev", decision="allow", args={"dashboard_id": "2", "env_id": "dev"},
                     conv_id="c-mine")  # fmt: skip
        record_audit(session, kind="executed", user="alice", role="analyst",
                     tool="search_dashboards", env="dev", decision="allow",
                     args={"query": "sales"}, conv_id="c-alice")  # fmt: skip
    with parts.db.engine.begin() as conn:
        conversations.note_turn(conn, conv_id="c-mine", owner=viewer, message="delete dashboard 2",
                                object_type=None, env_id="dev")  # fmt: skip


@pytest.fixture
async def ops_on_audit(user: User, core: Any, sign_in: Any, app_parts: Parts) -> Parts:
    """ops (an admin) signed in on /audit, and the log seeded with a row of ops's own
    conversation and one of alice's: the parts."""
    await sign_in("admin", target="/audit", username="ops")
    _seed(app_parts, "ops")
    return app_parts


@pytest.mark.usefixtures("ops_on_audit")
async def test_audit_rows_unfold_into_arguments_and_link_their_conversation(user: User) -> None:
    await user.open("/audit")
    table = user.find(marker="audit-table").elements.pop()
    rows = {r["tool"]: r for r in table.rows}
    mine, theirs = rows["delete_dashboard"], rows["search_dashboards"]
    assert [(a["name"], a["value"]) for a in mine["arg_rows"]] == [
        ("dashboard_id", "2"),
        ("env_id", "dev"),
    ]
    assert mine["conv_link"] == "/agent?conv=c-mine"
    assert theirs["conv_link"] == "/audit?conv=c-alice"
    assert "args" not in {c["name"] for c in table.columns}  # not a JSON cell any more
    assert {"header", "body"} <= set(table.slots)


async def test_a_conversations_trail_is_a_shareable_filter(user: User, ops_on_audit: Parts) -> None:
    app_parts = ops_on_audit
    assert [r["tool"] for r in fetch_rows(app_parts.db, {"conv": "c-alice"})] == [
        "search_dashboards"
    ]
    await user.open("/audit?conv=c-alice")
    await user.should_see("1 rows", retries=30)
    assert user.find(marker="filter-conversation").elements.pop().value == "c-alice"


@pytest.mark.usefixtures("ops_on_audit")
async def test_audit_has_the_agents_drawer_and_header(user: User) -> None:
    await user.open("/audit")
    for marker in ("conversations-button", "language-switch", "new-conversation", "sign-out"):
        await user.should_see(marker=marker)
    user.find(kind=ui.button, marker="conversations-button").click()
    await user.should_see(marker="conversation-title", content="delete dashboard 2", retries=30)
    user.find(marker="conversation-title", content="delete dashboard 2").trigger("click")
    await user.should_see(marker="agent-root", retries=30)  # /agent?conv=c-mine
    assert user.client is not None
    assert user.client.storage["agent_model"].conv_id == "c-mine"


async def test_audit_in_russian_has_the_russian_shell(
    user: User, core, sign_in, app_parts: Parts
) -> None:
    await sign_in("admin", target="/audit", username="ops")
    await user.open("/audit?lang=ru")
    await user.should_see("Журнал аудита")
    await user.should_see("Диалог")  # the conversation filter
