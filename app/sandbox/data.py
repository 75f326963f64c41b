"""The demo data file the sandbox's "Sales" database connection points at.

``sales.db`` (SQLite) holds a few hundred deterministic rows (seeded RNG), so
chart numbers are the same on every machine:

* ``sales(order_id, order_date, region, product, customer_id, quantity, amount)``
* ``customers(customer_id, name, region, segment, signup_date, churned, health_score)``
* ``funnel(week, stage, stage_order, visitors)``
* ``incidents(incident_id, opened_at, service, severity, minutes_to_resolve)``
"""

from __future__ import annotations

import datetime as dt
import random
import sqlite3
from pathlib import Path

REGIONS = ("North", "South", "East", "West")
PRODUCTS = ("Widget", "Gadget", "Gizmo", "Doohickey", "Sprocket")
PRICES = {"Widget": 12.5, "Gadget": 40.0, "Gizmo": 7.25, "Doohickey": 99.0, "Sprocket": 3.1}
SEGMENTS = ("Enterprise", "SMB", "Consumer")
STAGES = ("Visit", "Signup", "Trial", "Purchase")
SERVICES = ("api", "web", "etl", "auth")

N_CUSTOMERS = 120
N_SALES = 600
N_INCIDENTS = 150
START = dt.date(2025, 1, 1)
START_TS = dt.datetime(2025, 1, 1)

SCHEMA = """
CREATE TABLE customers (
    customer_id INTEGER PRIMARY KEY, name TEXT NOT NULL, region TEXT NOT NULL,
    segment TEXT NOT NULL, signup_date TEXT NOT NULL, churned INTEGER NOT NULL,
    health_score INTEGER NOT NULL);
CREATE TABLE sales (
    order_id INTEGER PRIMARY KEY, order_date TEXT NOT NULL, region TEXT NOT NULL,
    product TEXT NOT NULL, customer_id INTEGER NOT NULL REFERENCES customers(customer_id),
    quantity INTEGER NOT NULL, amount REAL NOT NULL);
CREATE TABLE funnel (
    week TEXT NOT NULL, stage TEXT NOT NULL, stage_order INTEGER NOT NULL,
    visitors INTEGER NOT NULL);
CREATE TABLE incidents (
    incident_id INTEGER PRIMARY KEY, opened_at TEXT NOT NULL, service TEXT NOT NULL,
    severity TEXT NOT NULL, minutes_to_resolve INTEGER NOT NULL);
"""


def _rows(seed: int) -> dict[str, list[tuple[object, ...]]]:
    rng = random.Random(seed)
    customers: list[tuple[object, ...]] = [
        (
            cid,
            f"Customer {cid:03d}",
            rng.choice(REGIONS),
            rng.choice(SEGMENTS),
            (START - dt.timedelta(days=rng.randint(30, 900))).isoformat(),
            int(rng.random() < 0.15),
            rng.randint(20, 100),
        )
        for cid in range(1, N_CUSTOMERS + 1)
    ]
    sales: list[tuple[object, ...]] = []
    for oid in range(1, N_SALES + 1):
        product = rng.choice(PRODUCTS)
        quantity = rng.randint(1, 20)
        day = START + dt.timedelta(days=rng.randint(0, 364))
        amount = round(quantity * PRICES[product] * rng.uniform(0.9, 1.1), 2)
        region, customer = rng.choice(REGIONS), rng.randint(1, N_CUSTOMERS)
        sales.append((oid, day.isoformat(), region, product, customer, quantity, amount))
    funnel: list[tuple[object, ...]] = []
    for week in range(12):
        visitors = rng.randint(4000, 6000)
        for order, stage in enumerate(STAGES, start=1):
            funnel.append(((START + dt.timedelta(weeks=week)).isoformat(), stage, order, visitors))
            visitors = int(visitors * rng.uniform(0.2, 0.5))
    incidents: list[tuple[object, ...]] = [
        (
            iid,
            (START_TS + dt.timedelta(hours=rng.randint(0, 364 * 24))).isoformat(sep=" "),
            rng.choice(SERVICES),
            rng.choice(("low", "medium", "high", "critical")),
            rng.randint(5, 600),
        )
        for iid in range(1, N_INCIDENTS + 1)
    ]
    return {"customers": customers, "sales": sales, "funnel": funnel, "incidents": incidents}


def generate_sales_db(path: Path, *, seed: int = 42) -> Path:
    """Write the demo SQLite file at ``path`` (atomically; replaces an existing one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    conn = sqlite3.connect(partial)
    try:
        conn.executescript(SCHEMA)
        for table, rows in _rows(seed).items():
            marks = ",".join("?" * len(rows[0]))
            conn.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
        conn.commit()
    finally:
        conn.close()
    partial.replace(path)
    return path


def ensure_sales_db(path: Path) -> Path:
    """The cached demo data file, generated on first use."""
    return path if path.exists() else generate_sales_db(path)
