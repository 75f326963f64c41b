"""What can be undone is declared in each tool's spec (pure data), and what the card says
about it follows from that declaration, the call's risk and the retention setting."""

from __future__ import annotations

import pytest

from app.policy import TOOL_CATALOG
from app.policy.undo import undo_note
from app.tools.declare import Family
from app.tools.undo.spec import UndoArgs

UNDOABLE = {
    "deploy_dashboard": "what it overwrote is restored from its export, what it made deleted",
    "execute_migration": "the same, for each dashboard",
    "restore_backup": "what the restore overwrote is restored from its export",
    "delete_dashboard": "re-imported from the backup taken before the delete",
    "superset_create_dataset": "the dataset is deleted",
    "start_maintenance": "the window is ended",
    "end_maintenance": "the window is opened again",
    "create_branch": "the branch is deleted",
    "commit_changes": "a revert commit",
}
FINAL = {
    "superset_execute_sql": "DML changes rows no export holds",
    "run_backup": "a backup stays taken (it changes nothing in Superset)",
    "undo_change": "an undo is not undone again",
}


@pytest.mark.parametrize("name", list(TOOL_CATALOG))
def test_every_tool_declares_whether_it_can_be_undone(name: str) -> None:
    spec = TOOL_CATALOG[name]
    if spec.risk == "read":
        assert spec.undo is None  # nothing to undo
    elif name in UNDOABLE:
        assert spec.undo == "undoable", UNDOABLE[name]
    else:
        assert spec.undo == "final", FINAL.get(name, "a new write is final unless it says so")


def test_a_new_write_cannot_be_undone_unless_its_spec_says_so() -> None:
    family = Family("scratch")
    common = dict(args=UndoArgs, description="Does a thing. Returns it.")
    made = [
        family.spec(n, risk=r, en=("do", "Do"), ru=("делать", "Делай"), **common)  # type: ignore[arg-type]
        for n, r in (("a_read", "read"), ("a_write", "write"), ("a_delete", "delete"))
    ]
    assert [s.undo for s in made] == [None, "final", "final"]


@pytest.mark.parametrize(
    ("tool", "risk", "days", "note"),
    [
        ("deploy_dashboard", "write", 7, {"undo": "undoable", "undo_days": 7}),
        ("delete_dashboard", "delete", 30, {"undo": "undoable", "undo_days": 30}),
        # a DML statement is final; the same tool's SELECT is a read: no line at all
        ("superset_execute_sql", "write", 7, {"undo": "final", "undo_days": 0}),
        ("superset_execute_sql", "read", 7, {}),
        ("search_dashboards", "read", 7, {}),  # a read has nothing to undo
        ("no_such_tool", "write", 7, {}),  # an unknown tool: the guard refuses it anyway
    ],
)
def test_the_cards_undo_line(tool: str, risk: str, days: int, note: dict[str, object]) -> None:
    assert undo_note(TOOL_CATALOG.get(tool), risk, days) == note


def test_the_undo_tool_is_a_dangerous_admin_call_that_fits_no_page() -> None:
    spec = TOOL_CATALOG["undo_change"]
    assert (spec.risk, set(spec.roles), set(spec.affinity)) == ("delete", {"admin"}, set())
    assert spec.long_task and spec.timeout_s == 600.0
    assert list(spec.args_model.model_fields) == ["undo_id"]
    with pytest.raises(ValueError):
        UndoArgs(undo_id="../../etc")  # an id is hex, nothing else
