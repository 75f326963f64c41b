"""A hand-made Superset dashboard export (same layout as ``/api/v1/dashboard/export/``)."""

from __future__ import annotations

import io
import zipfile

import yaml

DB_UUID = "a2dc77af-e654-49bb-b321-40f6b559a1ee"
DATASET_UUID = "0b4d2f3e-5c9a-4a5e-8f54-3a0c3b1e7d11"
CHART_UUID = "c8d6a7b0-1f2e-4d3c-9b8a-7e6f5d4c3b2a"
DASHBOARD_UUID = "d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6"


def export_docs(*, title: str = "Sales Overview", timestamp: str = "2026-11-30T04:00:00") -> dict:
    """Relative path → document of a one-dashboard, one-chart export."""
    return {
        "metadata.yaml": {"version": "1.0.0", "type": "Dashboard", "timestamp": timestamp},
        "databases/examples.yaml": {
            "database_name": "examples",
            "sqlalchemy_uri": "sqlite:////tmp/examples.db",
            "uuid": DB_UUID,
            "expose_in_sqllab": True,
            "version": "1.0.0",
        },
        "datasets/examples/sales_3.yaml": {
            "table_name": "sales",
            "schema": "main",
            "uuid": DATASET_UUID,
            "database_uuid": DB_UUID,
            "columns": [{"column_name": "amount", "type": "FLOAT"}],
            "metrics": [{"metric_name": "count", "expression": "COUNT(*)"}],
            "version": "1.0.0",
        },
        "charts/Revenue_7.yaml": {
            "slice_name": "Revenue",
            "viz_type": "big_number_total",
            "params": {"metric": "count", "datasource": "3__table"},
            "uuid": CHART_UUID,
            "dataset_uuid": DATASET_UUID,
            "version": "1.0.0",
        },
        "dashboards/Sales_Overview_1.yaml": {
            "dashboard_title": title,
            "slug": "sales-overview",
            "uuid": DASHBOARD_UUID,
            "position": {"CHART-1": {"meta": {"uuid": CHART_UUID, "chartId": 7}}},
            "metadata": {
                "native_filter_configuration": [
                    {"id": "F1", "targets": [{"datasetUuid": DATASET_UUID, "column": {}}]}
                ]
            },
            "version": "1.0.0",
        },
    }


def make_export_zip(
    docs: dict | None = None, root: str = "dashboard_export_20261130T040000"
) -> bytes:
    """Zip ``docs`` the way Superset does: one top folder, YAML files (keys unsorted)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for rel, doc in (docs or export_docs()).items():
            zf.writestr(f"{root}/{rel}", yaml.safe_dump(doc, sort_keys=False))
    return buf.getvalue()
