"""``GET /api/agent/tools?role=&objectType=``: which tools a caller would be offered, and
why the others are left out (the same pipeline the agent applies per turn).

Answer: ``{"role", "objectType", "tools": [names], "excluded": [{"name", "reason",
"layer"}]}``. A missing or unknown role gets least privilege (read tools only).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from app.policy import TOOL_CATALOG, build_tool_pipeline
from app.store.cot import cot_logger

router = APIRouter(tags=["agent"])


def caller_role(role: str | None) -> str | None:
    """The role whose view is listed. For now the ``role`` query parameter; a later issue
    takes it from the caller's token instead. None means least privilege."""
    value = (role or "").strip()
    return value or None


@router.get("/api/agent/tools")
def list_tools(
    role: Annotated[str | None, Query(max_length=64)] = None,
    object_type: Annotated[str | None, Query(alias="objectType", max_length=64)] = None,
) -> dict[str, Any]:
    effective = caller_role(role)
    context = (object_type or "").strip() or None
    result = build_tool_pipeline(
        list(TOOL_CATALOG.values()),
        effective,
        context,
        log=lambda ex: cot_logger.reason(
            "tool excluded", tool=ex.name, layer=ex.layer, why=ex.reason, role=effective
        ),
    )
    return {
        "role": effective,
        "objectType": context,
        "tools": [spec.name for spec in result.tools],
        "excluded": [
            {"name": e.name, "reason": e.reason, "layer": e.layer} for e in result.excluded
        ],
    }
