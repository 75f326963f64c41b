"""What the sandbox seeds: one database, its datasets, charts and dashboards.

Charts use viz types that need no browser (``table``, ``big_number_total``) and carry
``params`` plus a saved ``query_context``, so ``GET /api/v1/chart/{id}/data/`` works.
"Refund Total (broken)" sums a column that does not exist, so its data call fails:
the "Ops Broken Demo" dashboard is unhealthy on purpose. "Marketing Funnel" exists on
dev only, so a dev → prod migration has work to do.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

DATABASE_NAME = "Sales"
SCHEMA = "main"
DATASETS = ("sales", "customers", "funnel", "incidents")
BROKEN_CHART = "Refund Total (broken)"
DEV_ONLY = "dev"


@dataclass(frozen=True)
class DashboardSpec:
    slug: str
    title: str
    dev_only: bool = False


@dataclass(frozen=True)
class ChartSpec:
    name: str
    dataset: str
    viz_type: str  # "table" or "big_number_total"
    metric_sql: str
    metric_label: str
    dashboard: str  # slug
    groupby: tuple[str, ...] = ()


DASHBOARDS = (
    DashboardSpec("sales-overview", "Sales Overview"),
    DashboardSpec("customer-health", "Customer Health"),
    DashboardSpec("ops-broken", "Ops Broken Demo"),
    DashboardSpec("marketing-funnel", "Marketing Funnel", dev_only=True),
)

CHARTS = (
    ChartSpec("Total Revenue", "sales", "big_number_total", "SUM(amount)", "revenue",
              "sales-overview"),
    ChartSpec("Revenue by Region", "sales", "table", "SUM(amount)", "revenue",
              "sales-overview", ("region",)),
    ChartSpec("Units by Product", "sales", "table", "SUM(quantity)", "units",
              "sales-overview", ("product",)),
    ChartSpec("Customers by Segment", "customers", "table", "COUNT(*)", "customers",
              "customer-health", ("segment",)),
    ChartSpec("Churned Customers", "customers", "big_number_total", "SUM(churned)", "churned",
              "customer-health"),
    ChartSpec("Incidents by Service", "incidents", "table", "COUNT(*)", "incidents",
              "ops-broken", ("service",)),
    ChartSpec(BROKEN_CHART, "sales", "big_number_total", "SUM(refund_amount)", "refunds",
              "ops-broken"),
    ChartSpec("Visitors by Stage", "funnel", "table", "SUM(visitors)", "visitors",
              "marketing-funnel", ("stage",)),
    ChartSpec("Total Visits", "funnel", "big_number_total", "SUM(visitors)", "visits",
              "marketing-funnel"),
)  # fmt: skip


def dashboards_for(env_id: str) -> tuple[DashboardSpec, ...]:
    return tuple(d for d in DASHBOARDS if env_id == DEV_ONLY or not d.dev_only)


def charts_for(env_id: str) -> tuple[ChartSpec, ...]:
    slugs = {d.slug for d in dashboards_for(env_id)}
    return tuple(c for c in CHARTS if c.dashboard in slugs)


def _metric(chart: ChartSpec) -> dict[str, Any]:
    return {
        "expressionType": "SQL",
        "sqlExpression": chart.metric_sql,
        "label": chart.metric_label,
        "hasCustomLabel": True,
        "optionName": f"metric_{chart.metric_label}",
    }


def chart_params(chart: ChartSpec, dataset_id: int) -> dict[str, Any]:
    """The chart's ``params`` (form data)."""
    params: dict[str, Any] = {
        "datasource": f"{dataset_id}__table",
        "viz_type": chart.viz_type,
        "adhoc_filters": [],
    }
    if chart.viz_type == "table":
        params |= {
            "query_mode": "aggregate",
            "groupby": list(chart.groupby),
            "metrics": [_metric(chart)],
            "all_columns": [],
            "percent_metrics": [],
            "order_desc": True,
            "row_limit": 1000,
            "server_pagination": False,
            "table_timestamp_format": "smart_date",
        }
    else:
        params |= {"metric": _metric(chart), "y_axis_format": "SMART_NUMBER"}
    return params


def chart_query_context(chart: ChartSpec, dataset_id: int) -> dict[str, Any]:
    """A saved query context equivalent to what the Explore UI stores."""
    metric = _metric(chart)
    return {
        "datasource": {"id": dataset_id, "type": "table"},
        "force": False,
        "queries": [
            {
                "filters": [],
                "extras": {"having": "", "where": ""},
                "applied_time_extras": {},
                "columns": list(chart.groupby),
                "metrics": [metric],
                "orderby": [[metric, False]] if chart.groupby else [],
                "annotation_layers": [],
                "row_limit": 1000,
                "series_limit": 0,
                "order_desc": True,
                "url_params": {},
                "custom_params": {},
                "custom_form_data": {},
            }
        ],
        "form_data": chart_params(chart, dataset_id),
        "result_format": "json",
        "result_type": "full",
    }


def chart_payload(chart: ChartSpec, dataset_id: int, dashboard_id: int) -> dict[str, Any]:
    """The body of ``POST /api/v1/chart/``."""
    return {
        "slice_name": chart.name,
        "viz_type": chart.viz_type,
        "datasource_id": dataset_id,
        "datasource_type": "table",
        "params": json.dumps(chart_params(chart, dataset_id)),
        "query_context": json.dumps(chart_query_context(chart, dataset_id)),
        "dashboards": [dashboard_id],
    }


def position_json(title: str, charts: list[tuple[int, str, str]]) -> str:
    """A v2 dashboard layout: one row per two charts. ``charts``: (id, uuid, name)."""
    layout: dict[str, Any] = {
        "DASHBOARD_VERSION_KEY": "v2",
        "ROOT_ID": {"type": "ROOT", "id": "ROOT_ID", "children": ["GRID_ID"]},
        "HEADER_ID": {"id": "HEADER_ID", "type": "HEADER", "meta": {"text": title}},
        "GRID_ID": {"type": "GRID", "id": "GRID_ID", "children": [], "parents": ["ROOT_ID"]},
    }
    for start in range(0, len(charts), 2):
        row_id = f"ROW-{start // 2 + 1}"
        layout["GRID_ID"]["children"].append(row_id)
        row: dict[str, Any] = {
            "type": "ROW",
            "id": row_id,
            "children": [],
            "parents": ["ROOT_ID", "GRID_ID"],
            "meta": {"background": "BACKGROUND_TRANSPARENT"},
        }
        for chart_id, uuid, name in charts[start : start + 2]:
            key = f"CHART-{chart_id}"
            row["children"].append(key)
            layout[key] = {
                "type": "CHART",
                "id": key,
                "children": [],
                "parents": ["ROOT_ID", "GRID_ID", row_id],
                "meta": {
                    "width": 6,
                    "height": 50,
                    "chartId": chart_id,
                    "uuid": uuid,
                    "sliceName": name,
                },
            }
        layout[row_id] = row
    return json.dumps(layout)
