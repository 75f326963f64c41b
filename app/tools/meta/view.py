"""How the meta tools' results are shown: what the agent can do here (a table of tools,
their risk said in words) and the environments (a table with links). A task's status is
the generic ``tasks`` view (:mod:`app.views.build`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.views import Links, TableView, dict_table, said_in_words


def capabilities(result: Mapping[str, Any], links: Links) -> TableView:
    rows = [
        {"family": family, **tool}
        for family, tools in (result.get("groups") or {}).items()
        for tool in tools
    ]
    table = dict_table(rows, ("name", "family", "risk", "description"), csv_name="capabilities")
    return said_in_words(table, "risk")


def environments(result: Mapping[str, Any], links: Links) -> TableView:
    rows = [
        {
            **{k: e.get(k) for k in ("id", "name", "tier", "reachable", "in_maintenance")},
            "url": e.get("url") if str(e.get("url") or "").startswith(("http://", "https://"))
            else None,
        }
        for e in result.get("environments") or []
    ]  # fmt: skip
    table = dict_table(
        rows, ("id", "name", "tier", "url", "reachable", "in_maintenance"), csv_name="environments"
    )
    columns = [c.model_copy(update={"link": c.key == "url"}) for c in table.columns]
    return table.model_copy(update={"columns": columns})
