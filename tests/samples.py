"""Tool results shared by the tests of what a person is shown of them (the planner's
answer text, the page's result views)."""

from __future__ import annotations

from typing import Any

# SQL Lab's answer of two rows; East's total carries float noise the views must not show
SQL_RESULT: dict[str, Any] = {
    "env": "dev",
    "database": "examples",
    "columns": ["region", "total"],
    "rows": [{"region": "East", "total": 59849.78999999998}, {"region": "North", "total": 1200}],
    "row_count": 2,
    "truncated": False,
}
