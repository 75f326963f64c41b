"""A hidden statement and a huge text, at run time: once Superset names the database's
backend, the SQL is read in that database's own dialect too, and a reading worse than the
one the call was rated by stops it before SQL Lab is asked; the query's own LIMIT is read
off the loop."""

from __future__ import annotations

import pytest

from app.errors import ToolError
from app.parts import Parts
from tests.superset.fake import FakeSuperset
from tests.superset.tool_calls import call, deps_for

NO_ESCAPE = "SELECT * FROM t WHERE s = 'it''s'"  # one string to the candidates, not to BigQuery


def _fake(backend: str) -> FakeSuperset:
    fake = FakeSuperset()
    fake.route(
        "GET",
        "/api/v1/database/",
        {"result": [{"id": 1, "database_name": "Warehouse", "backend": backend}]},
    )
    fake.route(
        "POST",
        "/api/v1/sqllab/execute/",
        {"status": "success", "data": [{"n": 1}], "columns": [{"column_name": "n"}]},
    )
    return fake  # fmt: skip


async def test_a_worse_reading_in_the_databases_own_dialect_runs_nothing(parts: Parts) -> None:
    fake = _fake("bigquery")
    with pytest.raises(ToolError, match=r"as database 'Warehouse' \(bigquery\) reads it"):
        await call("superset_execute_sql", deps_for(parts, fake), sql=NO_ESCAPE)
    assert not [r for r in fake.requests if r.url.path == "/api/v1/sqllab/execute/"]


@pytest.mark.parametrize("backend", ["postgresql", "sqlite", "mysql", "mssql", "unknown"])
async def test_a_reading_no_worse_runs(parts: Parts, backend: str) -> None:
    fake = _fake(backend)
    out = await call("superset_execute_sql", deps_for(parts, fake), sql=NO_ESCAPE + " LIMIT 3")
    assert out["rows"] == [{"n": 1}]
    assert fake.requests[-1].read().count(b'"queryLimit":3') == 1  # the query's own LIMIT


def _dataset_fake(backend: str) -> FakeSuperset:
    fake = _fake(backend)
    fake.route("POST", "/api/v1/dataset/", {"id": 7, "data": {}})
    return fake


async def test_a_virtual_datasets_sql_read_worse_by_its_database_creates_nothing(
    parts: Parts,
) -> None:
    """A dataset's SQL runs on every chart render: the database's own reading checks it
    before the dataset is made, as SQL Lab's call is checked before it runs."""
    fake = _dataset_fake("bigquery")
    with pytest.raises(ToolError, match=r"as database 'Warehouse' \(bigquery\) reads it"):
        await call(
            "superset_create_dataset", deps_for(parts, fake),
            database="Warehouse", table_name="v", sql=NO_ESCAPE,
        )  # fmt: skip
    assert not [r for r in fake.requests if r.url.path == "/api/v1/dataset/"]


async def test_a_virtual_datasets_sql_read_alike_is_created(parts: Parts) -> None:
    fake = _dataset_fake("postgresql")
    out = await call(
        "superset_create_dataset", deps_for(parts, fake),
        database="Warehouse", table_name="v", sql=NO_ESCAPE,
    )  # fmt: skip
    assert out["kind"] == "virtual" and out["id"] == 7
    # this stand-in cannot list datasets: the undo's snapshot failed, the creation stands
    assert "/api/v1/dataset/ failed (404)" in out["undo_unavailable"]
