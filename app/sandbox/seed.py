"""Seed the sandbox's demo objects over the REST API, idempotently, and verify them.

The source instance (``dev`` when running, else the first) gets the "Sales" SQLite
database connection (its own ``sales.db``), datasets, charts and dashboards created
one by one; anything that already exists (database/dataset/chart by name, dashboard by
slug) is skipped. Every other instance receives the common dashboards by **export from
the source and import** (``overwrite=true``), so both share UUIDs — which also proves
export/import works. Each instance's connection is then pointed at its own data file
(``allow_dml`` on dev only).

After a first successful seed the instances' metadata DBs are snapshotted into
``templates/seeded-<env>/superset.db``; later starts copy those (the warm path), and
seeding only re-points connections and verifies.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.sandbox import demo
from app.sandbox.common import Progress, SandboxError, step
from app.sandbox.install import cache_lock
from app.sandbox.instances import Sandbox, SandboxEnv
from app.sandbox.second_person import seed_people
from app.sandbox.superset_rest import SupersetSession, error_message, rison_list


@dataclass
class EnvSeed:
    """What one instance holds after seeding."""

    env_id: str
    database_id: int = 0
    created: list[str] = field(default_factory=list)
    datasets: dict[str, int] = field(default_factory=dict)
    dashboards: dict[str, int] = field(default_factory=dict)  # slug -> id
    charts: dict[str, int] = field(default_factory=dict)  # name -> id
    checks: dict[str, str] = field(default_factory=dict)  # chart name -> "ok: N rows" | "error: …"


@dataclass
class SeedReport:
    envs: dict[str, EnvSeed]
    seconds: float


def _session(env: SandboxEnv) -> SupersetSession:
    return SupersetSession(env.url, env.username, env.password)


def _ensure_database(s: SupersetSession, env: SandboxEnv, *, create: bool) -> int:
    uri = f"sqlite:///{env.data_file.resolve()}"
    allow_dml = env.tier == "dev"
    rows = s.list_all("database", ["id", "database_name"])
    found = [r["id"] for r in rows if r["database_name"] == demo.DATABASE_NAME]
    if not found:
        if not create:
            raise SandboxError(f"{env.id} has no {demo.DATABASE_NAME!r} database after import")
        body = s.call(
            "POST",
            "/api/v1/database/",
            json={
                "database_name": demo.DATABASE_NAME,
                "sqlalchemy_uri": uri,
                "expose_in_sqllab": True,
                "allow_dml": allow_dml,
            },
        )
        return int(body["id"])
    db_id = int(found[0])
    current = s.call("GET", f"/api/v1/database/{db_id}")["result"]
    if current.get("sqlalchemy_uri") != uri or bool(current.get("allow_dml")) != allow_dml:
        s.call(
            "PUT",
            f"/api/v1/database/{db_id}",
            json={"sqlalchemy_uri": uri, "allow_dml": allow_dml, "expose_in_sqllab": True},
        )
    return db_id


def _seed_source(s: SupersetSession, env: SandboxEnv, result: EnvSeed) -> None:
    """Create the database, datasets, dashboards and charts that are missing."""
    result.database_id = _ensure_database(s, env, create=True)
    datasets = {
        r["table_name"]: int(r["id"])
        for r in s.list_all("dataset", ["id", "table_name", "database.id"])
        if r["database"]["id"] == result.database_id
    }
    for table in demo.DATASETS:
        if table not in datasets:
            body = s.call(
                "POST",
                "/api/v1/dataset/",
                json={"database": result.database_id, "schema": demo.SCHEMA, "table_name": table},
            )
            datasets[table] = int(body["id"])
            result.created.append(f"dataset:{table}")
    result.datasets = datasets

    dashboards = {r["slug"]: int(r["id"]) for r in s.list_all("dashboard", ["id", "slug"])}
    for dash in demo.dashboards_for(env.id):
        if dash.slug not in dashboards:
            body = s.call(
                "POST",
                "/api/v1/dashboard/",
                json={"dashboard_title": dash.title, "slug": dash.slug, "published": True},
            )
            dashboards[dash.slug] = int(body["id"])
            result.created.append(f"dashboard:{dash.slug}")

    charts = {r["slice_name"]: int(r["id"]) for r in s.list_all("chart", ["id", "slice_name"])}
    changed: set[str] = set()
    for chart in demo.charts_for(env.id):
        if chart.name not in charts:
            payload = demo.chart_payload(
                chart, datasets[chart.dataset], dashboards[chart.dashboard]
            )
            charts[chart.name] = int(s.call("POST", "/api/v1/chart/", json=payload)["id"])
            result.created.append(f"chart:{chart.name}")
            changed.add(chart.dashboard)
    _lay_out(s, env, dashboards, changed)
    result.dashboards = {d.slug: dashboards[d.slug] for d in demo.dashboards_for(env.id)}
    result.charts = {c.name: charts[c.name] for c in demo.charts_for(env.id)}


def _lay_out(
    s: SupersetSession, env: SandboxEnv, dashboards: dict[str, int], changed: set[str]
) -> None:
    """Place each changed dashboard's charts in its ``position_json``."""
    if not changed:
        return
    uuids = {r["id"]: r["uuid"] for r in s.list_all("chart", ["id", "uuid"])}
    for dash in demo.dashboards_for(env.id):
        if dash.slug not in changed:
            continue
        dash_id = dashboards[dash.slug]
        on_dash = s.call("GET", f"/api/v1/dashboard/{dash_id}/charts")["result"]
        by_name = {c["slice_name"]: int(c["id"]) for c in on_dash}
        placed = [
            (by_name[c.name], uuids[by_name[c.name]], c.name)
            for c in demo.charts_for(env.id)
            if c.dashboard == dash.slug and c.name in by_name
        ]
        s.call(
            "PUT",
            f"/api/v1/dashboard/{dash_id}",
            json={"position_json": demo.position_json(dash.title, placed)},
        )


def _copy_from_source(
    src: SupersetSession, source: EnvSeed, dst: SupersetSession, env: SandboxEnv, result: EnvSeed
) -> None:
    """Export the target's missing dashboards from the source and import them."""
    have = {r["slug"]: int(r["id"]) for r in dst.list_all("dashboard", ["id", "slug"])}
    wanted = [d.slug for d in demo.dashboards_for(env.id)]
    missing = [slug for slug in wanted if slug not in have]
    if missing:
        ids = [source.dashboards[slug] for slug in missing]
        bundle = src.raw("GET", "/api/v1/dashboard/export/", params={"q": rison_list(ids)})
        dst.call(
            "POST",
            "/api/v1/dashboard/import/",
            files={"formData": ("dashboards.zip", bundle.content, "application/zip")},
            data={"overwrite": "true"},
        )
        result.created += [f"dashboard:{slug} (imported)" for slug in missing]
        have = {r["slug"]: int(r["id"]) for r in dst.list_all("dashboard", ["id", "slug"])}
    result.database_id = _ensure_database(dst, env, create=False)
    result.dashboards = {slug: have[slug] for slug in wanted}
    names = {c.name for c in demo.charts_for(env.id)}
    result.charts = {
        r["slice_name"]: int(r["id"])
        for r in dst.list_all("chart", ["id", "slice_name"])
        if r["slice_name"] in names
    }


def check_chart(s: SupersetSession, chart_id: int) -> str:
    """``"ok: N rows"`` when the chart's saved query runs, else ``"error: …"``."""
    response = s.client.get(f"/api/v1/chart/{chart_id}/data/")
    if response.status_code != 200:
        return f"error: {response.status_code} {error_message(response)}"
    rows = sum(len(r.get("data") or []) for r in response.json().get("result", []))
    return f"ok: {rows} rows"


def _verify(s: SupersetSession, env: SandboxEnv, result: EnvSeed) -> None:
    expected = {c.name for c in demo.charts_for(env.id)}
    if set(result.charts) != expected:
        raise SandboxError(f"{env.id} charts {sorted(result.charts)} != {sorted(expected)}")
    for name, chart_id in result.charts.items():
        result.checks[name] = verdict = check_chart(s, chart_id)
        broken = name == demo.BROKEN_CHART
        if broken != verdict.startswith("error") or verdict == "ok: 0 rows":
            raise SandboxError(f"{env.id} chart {name!r}: unexpected result {verdict}")


def snapshot_db(source: Path, target: Path) -> None:
    """Copy a live SQLite DB consistently (backup API) to ``target``, atomically."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    src = sqlite3.connect(source)
    dst = sqlite3.connect(partial)
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()
    partial.replace(target)


def seed_sandbox(
    sandbox: Sandbox, progress: Progress = print, *, cache_templates: bool = True
) -> SeedReport:
    """Seed every instance (idempotent), verify chart data, cache seeded templates."""
    started = time.perf_counter()
    ids = [e.id for e in sandbox.environments]
    source_env = sandbox.env("dev" if "dev" in ids else ids[0])
    report: dict[str, EnvSeed] = {}
    with step(progress, f"seeding {', '.join(ids)}"), _session(source_env) as src:
        report[source_env.id] = source = EnvSeed(source_env.id)
        _seed_source(src, source_env, source)
        _verify(src, source_env, source)
        source.created += seed_people(src, sandbox.paths, source.datasets)
        for env in sandbox.environments:
            if env.id == source_env.id:
                continue
            report[env.id] = result = EnvSeed(env.id)
            with _session(env) as dst:
                _copy_from_source(src, source, dst, env, result)
                _verify(dst, env, result)
    for result in report.values():
        created = ", ".join(result.created) or "nothing new"
        progress(f"[sandbox] {result.env_id}: {created}; checks {_summary(result.checks)}")
    if cache_templates and not sandbox.from_seeded_templates:
        with cache_lock(sandbox.paths), step(progress, "caching seeded metadata DBs"):
            for env in sandbox.environments:
                snapshot_db(env.home / "superset.db", sandbox.paths.seeded_db(env.id))
        sandbox.from_seeded_templates = True
    return SeedReport(report, time.perf_counter() - started)


def _summary(checks: dict[str, Any]) -> str:
    ok = sum(1 for v in checks.values() if str(v).startswith("ok"))
    return f"{ok} ok, {len(checks) - ok} failing (as designed: {demo.BROKEN_CHART!r})"
