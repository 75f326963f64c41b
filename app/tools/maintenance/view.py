"""How a maintenance window is shown: its facts (environment, whether it is on, why, who
started it, until when, who ended it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.views import FactsView, Links, facts


def maintenance(result: Mapping[str, Any], links: Links) -> FactsView:
    keys = ("env_id", "active", "reason", "started_by", "started_at", "ends_at", "ended_at",
            "ended_by")  # fmt: skip
    return facts(result, links, keys)
