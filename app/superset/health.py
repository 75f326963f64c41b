"""Dashboard inspection shared by the health, validation and documentation tools."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from app.errors import SupersetError, SupersetUnavailableError
from app.i18n import catalog, said
from app.superset.client import SupersetClient

SLOW_CHART_MS = 3000.0
STALE_DATASET_DAYS = 180
CONCURRENCY = 4
_TRANSIENT_STATUSES = {502, 503, 504}
T = TypeVar("T")


@dataclass
class DashboardBundle:
    """A dashboard with its charts (full chart rows) and datasets."""

    dashboard: dict[str, Any]
    charts: list[dict[str, Any]]
    datasets: list[dict[str, Any]]

    @property
    def id(self) -> int:
        return int(self.dashboard["id"])

    @property
    def title(self) -> str:
        return str(self.dashboard.get("dashboard_title") or "")


@dataclass
class ChartCheck:
    id: int
    name: str
    status: str  # ok | error | empty | unchecked
    rows: int | None = None
    ms: float | None = None
    error: str | None = None
    slow: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass
class HealthReport:
    verdict: str
    reasons: list[str]
    charts: list[ChartCheck] = field(default_factory=list)
    stale_datasets: list[dict[str, Any]] = field(default_factory=list)


async def gather_bounded(coros: list[Coroutine[Any, Any, T]], limit: int = CONCURRENCY) -> list[T]:
    """Run ``coros`` at most ``limit`` at a time; results in order. The first error is
    raised as itself (not an ExceptionGroup, so the retry logic sees its type) and the
    remaining calls are cancelled."""
    sem = asyncio.Semaphore(limit)

    async def one(coro: Coroutine[Any, Any, T]) -> T:
        async with sem:
            return await coro

    tasks = [asyncio.ensure_future(one(c)) for c in coros]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def load_bundle(client: SupersetClient, id_or_slug: str | int) -> DashboardBundle:
    """Dashboard detail, its charts (each with query_context) and its datasets."""
    dashboard = await client.get_dashboard(id_or_slug)
    dash_id = dashboard["id"]
    charts_short, datasets = await asyncio.gather(
        client.dashboard_charts(dash_id), client.dashboard_datasets(dash_id)
    )
    details = await gather_bounded([client.get_chart(c["id"]) for c in charts_short])
    charts = [short | detail for short, detail in zip(charts_short, details, strict=True)]
    return DashboardBundle(dashboard=dashboard, charts=charts, datasets=datasets)


def chart_dataset_id(chart: dict[str, Any]) -> int | None:
    """The dataset id a chart reads from (``form_data.datasource`` = ``"12__table"``)."""
    form = chart.get("form_data") or {}
    ds = form.get("datasource") or chart.get("datasource_id")
    if isinstance(ds, str) and "__" in ds:
        ds = ds.split("__", 1)[0]
    try:
        return int(ds) if ds is not None else None
    except (TypeError, ValueError):
        return None


async def check_chart(client: SupersetClient, chart: dict[str, Any]) -> ChartCheck:
    """Run one chart's saved query; classify it as ok, error, empty or unchecked."""
    name = str(chart.get("slice_name") or f"chart {chart['id']}")
    if not chart.get("query_context"):
        return ChartCheck(
            chart["id"], name, "unchecked", error="no saved query context: cannot be checked"
        )
    started = time.perf_counter()
    try:
        data = await client.chart_data(chart["id"])
    except SupersetUnavailableError as exc:
        if exc.status_code is None or exc.status_code in _TRANSIENT_STATUSES:
            raise  # Superset itself is unreachable: not this chart's fault
        return ChartCheck(chart["id"], name, "error", error=exc.message, ms=_ms(started))
    except SupersetError as exc:
        return ChartCheck(chart["id"], name, "error", error=exc.message, ms=_ms(started))
    ms = _ms(started)
    results = data.get("result") or []
    errors = [r.get("error") for r in results if r.get("error")]
    rows = sum(int(r.get("rowcount") or 0) for r in results)
    slow = ms > SLOW_CHART_MS
    if errors:
        return ChartCheck(chart["id"], name, "error", rows, ms, "; ".join(map(str, errors)), slow)
    return ChartCheck(chart["id"], name, "empty" if rows == 0 else "ok", rows, ms, slow=slow)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)


async def check_charts(client: SupersetClient, charts: list[dict[str, Any]]) -> list[ChartCheck]:
    return await gather_bounded([check_chart(client, c) for c in charts])


def _parse_ts(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        ts = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return ts if ts.tzinfo else ts.replace(tzinfo=UTC)


async def stale_datasets(
    client: SupersetClient, datasets: list[dict[str, Any]], days: int = STALE_DATASET_DAYS
) -> list[dict[str, Any]]:
    """Datasets whose definition was last changed more than ``days`` days ago."""
    full = await gather_bounded([client.get_dataset(d["id"]) for d in datasets])
    cutoff = datetime.now(UTC) - timedelta(days=days)
    stale = []
    for ds in full:
        changed = _parse_ts(ds.get("changed_on"))
        if changed is not None and changed < cutoff:
            stale.append(
                {"id": ds["id"], "name": ds.get("table_name"), "changed_on": ds["changed_on"]}
            )
    return stale


# what a dashboard inspection says, in English and Russian (app/strings.toml [inspection])
SAYS = catalog("inspection")


def said_object(kind: str, lang: str, **what: Any) -> str:
    """A dashboard, chart or dataset as a check names it (``what``: its id and name)."""
    return said(SAYS[f"object_{kind}"], lang, **what)


def verdict(
    checks: list[ChartCheck], stale: list[dict[str, Any]], lang: str = "en"
) -> HealthReport:
    """ok | warning | broken with the reasons behind it (said in ``lang``)."""
    reasons: list[str] = []

    def reason(key: str, check: ChartCheck | None = None, **values: Any) -> None:
        if check is not None:
            values["chart"] = said_object("chart", lang, name=check.name, id=check.id)
        reasons.append(said(SAYS[key], lang, **values))

    broken = [c for c in checks if c.status == "error"]
    for c in broken:
        reason("fails", c, error=c.error)
    for c in checks:
        if c.status == "empty":
            reason("empty", c)
        if c.status == "unchecked":
            reason("unchecked", c)
        if c.slow:
            reason("slow", c, ms=f"{c.ms:.0f}")
    for d in stale:
        reason("stale", name=d["name"], changed_on=d["changed_on"])
    if broken:
        level = "broken"
    elif reasons:
        level = "warning"
    else:
        level = "ok"
    if not checks:
        reason("no_charts")
        level = "warning" if level == "ok" else level
    return HealthReport(level, reasons, checks, stale)
