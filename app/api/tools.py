"""``GET /api/agent/tools?role=&objectType=``: which tools a caller would be offered, and
why the others are left out (the same pipeline the agent applies per turn).

Answer: ``{"role", "objectType", "tools": [names], "excluded": [{"name", "reason",
"layer"}], "approval": {"second_person": [...], "approver_roles": [...]}}`` (``approval``:
which confirmed calls also need a second person; an empty ``second_person`` is off). A
missing or unknown role gets least privilege (read tools only).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from app.api.deps import core_of, require_principal
from app.auth import bearer_token

router = APIRouter(tags=["agent"])


def caller_role(request: Request, role: str | None) -> str | None:
    """The role whose view is listed: the caller's own role when a Bearer token is sent
    (an invalid token is a 401); without one, the ``role`` query parameter (an operator's
    what-if view; it grants nothing). None means least privilege."""
    if bearer_token(request):
        return require_principal(request).role
    value = (role or "").strip()
    return value or None


@router.get("/api/agent/tools")
def list_tools(
    request: Request,
    role: Annotated[str | None, Query(max_length=64)] = None,
    object_type: Annotated[str | None, Query(alias="objectType", max_length=64)] = None,
) -> dict[str, Any]:
    effective = caller_role(request, role)
    context = (object_type or "").strip() or None
    core = core_of(request)
    result = core.tool_listing(effective, context)
    return {
        "role": effective,
        "objectType": context,
        "tools": [spec.name for spec in result.tools],
        "excluded": [
            {"name": e.name, "reason": e.reason, "layer": e.layer} for e in result.excluded
        ],
        "approval": core.rules.policy().approval.as_dict(),
    }
