"""The local Superset sandbox: real instances, seeded demo objects, credentials file.

Tests marked ``superset`` run against the session's ``superset_sandbox`` (see
conftest.py); the rest check the sandbox's pure parts without Superset.
"""

from __future__ import annotations

import stat
import tomllib
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import httpx
import pytest

from app.sandbox import (
    CachePaths,
    Sandbox,
    SandboxEnv,
    SandboxError,
    ensure_sandbox,
    seed_sandbox,
    start_sandbox,
)
from app.sandbox.common import quiet
from app.sandbox.data import generate_sales_db
from app.sandbox.demo import BROKEN_CHART, DASHBOARDS, charts_for, dashboards_for
from app.sandbox.superset_config import write_superset_config
from app.sandbox.superset_rest import error_message
from tests.waiting import wait_until

COMMON_SLUGS = {"sales-overview", "customer-health", "ops-broken"}


@contextmanager
def _login(url: str, username: str, password: str) -> Iterator[httpx.Client]:
    """A client logged in with a bearer token (closed on exit)."""
    with httpx.Client(base_url=url, headers={"Accept": "application/json"}, timeout=30) as client:
        response = client.post(
            "/api/v1/security/login",
            json={"username": username, "password": password, "provider": "db", "refresh": True},
        )
        assert response.status_code == 200, response.text
        client.headers["Authorization"] = f"Bearer {response.json()['access_token']}"
        yield client


def _client(env: SandboxEnv) -> AbstractContextManager[httpx.Client]:
    return _login(env.url, env.username, env.password)


def _dashboards(client: httpx.Client) -> dict[str, dict]:
    q = "(columns:!(id,slug,dashboard_title,uuid),page:0,page_size:100)"
    body = client.get("/api/v1/dashboard/", params={"q": q}).json()
    return {row["slug"]: row for row in body["result"]}


def _chart_id(client: httpx.Client, name: str) -> int:
    q = f"(filters:!((col:slice_name,opr:eq,value:'{name}')),columns:!(id))"
    rows = client.get("/api/v1/chart/", params={"q": q}).json()["result"]
    assert len(rows) == 1, rows
    return int(rows[0]["id"])


def _listening_addresses(port: int) -> set[str]:
    """Local addresses (hex, as in /proc/net/tcp*) with a LISTEN socket on ``port``."""
    found = set()
    for table in (Path("/proc/net/tcp"), Path("/proc/net/tcp6")):
        if not table.exists():  # IPv6 disabled
            continue
        for line in table.read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:
                found.add(address)
    return found


# --- against the running sandbox ---------------------------------------------------------


@pytest.mark.superset
@pytest.mark.parametrize("env_id", ["dev", "prod"])
def test_each_instance_answers_health_on_loopback_only(
    superset_sandbox: Sandbox, env_id: str
) -> None:
    env = superset_sandbox.env(env_id)
    response = httpx.get(f"{env.url}/health", timeout=10)
    assert response.status_code == 200
    assert response.text.strip() == "OK"
    assert env.url.startswith("http://127.0.0.1:")
    assert _listening_addresses(env.port) == {"0100007F"}  # 127.0.0.1, nothing else


@pytest.mark.superset
def test_dev_has_marketing_funnel_and_prod_lacks_it(superset_sandbox: Sandbox) -> None:
    with _client(superset_sandbox.env("dev")) as dev, _client(superset_sandbox.env("prod")) as prod:
        dev_slugs, prod_slugs = set(_dashboards(dev)), set(_dashboards(prod))
    assert dev_slugs == COMMON_SLUGS | {"marketing-funnel"}
    assert prod_slugs == COMMON_SLUGS


@pytest.mark.superset
def test_common_dashboards_share_uuids_between_dev_and_prod(superset_sandbox: Sandbox) -> None:
    with _client(superset_sandbox.env("dev")) as dev, _client(superset_sandbox.env("prod")) as prod:
        dev_rows, prod_rows = _dashboards(dev), _dashboards(prod)
    for slug in COMMON_SLUGS:
        assert dev_rows[slug]["uuid"] == prod_rows[slug]["uuid"], slug
        assert dev_rows[slug]["dashboard_title"] == prod_rows[slug]["dashboard_title"]


@pytest.mark.superset
@pytest.mark.parametrize("env_id", ["dev", "prod"])
def test_broken_chart_returns_an_error_while_a_good_chart_returns_rows(
    superset_sandbox: Sandbox, env_id: str
) -> None:
    with _client(superset_sandbox.env(env_id)) as client:
        good = client.get(f"/api/v1/chart/{_chart_id(client, 'Revenue by Region')}/data/")
        broken = client.get(f"/api/v1/chart/{_chart_id(client, BROKEN_CHART)}/data/")
    assert good.status_code == 200
    rows = good.json()["result"][0]["data"]
    assert {row["region"] for row in rows} == {"North", "South", "East", "West"}
    assert all(row["revenue"] > 0 for row in rows)
    assert broken.status_code >= 400
    assert "refund_amount" in error_message(broken)


@pytest.mark.superset
def test_broken_dashboard_holds_the_broken_chart(superset_sandbox: Sandbox) -> None:
    with _client(superset_sandbox.env("prod")) as client:
        charts = client.get("/api/v1/dashboard/ops-broken/charts").json()["result"]
    assert BROKEN_CHART in {c["slice_name"] for c in charts}


@pytest.mark.superset
@pytest.mark.parametrize("env_id", ["dev", "prod"])
def test_login_works_with_the_env_file_credentials(superset_envs_file: Path, env_id: str) -> None:
    entries = {e["id"]: e for e in tomllib.loads(superset_envs_file.read_text())["environment"]}
    entry = entries[env_id]
    assert entry["tier"] == env_id
    with _login(entry["url"], entry["username"], entry["password"]) as client:
        assert client.get("/api/v1/me/").status_code == 200


@pytest.mark.superset
def test_env_file_is_private_and_loads_in_the_environment_registry(
    superset_envs_file: Path, superset_sandbox: Sandbox
) -> None:
    from app.superset.environments import read_environments_file

    assert stat.S_IMODE(superset_envs_file.stat().st_mode) == 0o600
    environments, errors = read_environments_file(superset_envs_file)
    assert errors == {}
    assert {(e.id, e.url) for e in environments} == {
        (e.id, e.url) for e in superset_sandbox.environments
    }


@pytest.mark.superset
def test_dev_allows_dml_and_prod_does_not(superset_sandbox: Sandbox) -> None:
    for env_id, expected in (("dev", True), ("prod", False)):
        env = superset_sandbox.env(env_id)
        with _client(env) as client:
            q = "(filters:!((col:database_name,opr:eq,value:Sales)),columns:!(id,allow_dml))"
            rows = client.get("/api/v1/database/", params={"q": q}).json()["result"]
        assert [r["allow_dml"] for r in rows] == [expected], env_id


@pytest.mark.superset
def test_seeding_again_creates_nothing(superset_sandbox: Sandbox) -> None:
    report = seed_sandbox(superset_sandbox, progress=quiet, cache_templates=False)
    assert {env_id: r.created for env_id, r in report.envs.items()} == {"dev": [], "prod": []}
    assert report.envs["dev"].checks[BROKEN_CHART].startswith("error")


@pytest.mark.superset
def test_ensure_sandbox_reuses_a_running_one_and_stop_frees_its_port(
    superset_sandbox: Sandbox, tmp_path: Path
) -> None:
    first, started = ensure_sandbox(("dev",), tmp_path, quiet, env_file=tmp_path / "envs.toml")
    again, started_again = ensure_sandbox(("dev",), tmp_path, quiet)
    env = first.env("dev")
    assert (started, started_again) == (True, False)
    assert again.env("dev").pid == env.pid and env.is_healthy()
    assert tomllib.loads((tmp_path / "envs.toml").read_text())["environment"][0]["url"] == env.url
    first.stop()
    assert not env.is_running()
    assert not (tmp_path / "sandbox.json").exists()
    wait_until(lambda: not _listening_addresses(env.port), "the sandbox still listens", every=0.1)


@pytest.mark.superset
def test_an_instance_that_dies_at_start_up_reports_its_log_tail(
    superset_sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.sandbox import instances

    def broken_config(home: Path, **kwargs: object) -> Path:
        path = write_superset_config(home, **kwargs)  # type: ignore[arg-type]
        path.write_text(path.read_text() + "raise RuntimeError('sandbox-test-broken-config')\n")
        return path

    monkeypatch.setattr(instances, "write_superset_config", broken_config)
    with pytest.raises(SandboxError, match="sandbox-test-broken-config"):
        start_sandbox(envs=("dev",), base_dir=tmp_path, progress=quiet)
    assert not (tmp_path / "sandbox.json").exists()


def test_a_failed_install_raises_with_the_pip_log_and_leaves_no_stamp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.sandbox import install

    # pip refuses this before any download, so the test needs no network
    monkeypatch.setattr(install, "EXTRA_PINS", ("not a requirement ===",))
    paths = CachePaths(tmp_path / "cache")
    with pytest.raises(SandboxError, match=r"exited with \d+; log .*install\.log"):
        install.ensure_installed(quiet, paths)
    assert not install.is_installed(paths)
    assert not paths.install_stamp.exists()


# --- without Superset --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        # {"errors": [...]}: Superset's chart-data and SQL Lab errors
        (400, {"errors": [{"message": "no such column: x"}]}, "no such column: x"),
        # {"message": {field: [...]}}: marshmallow validation errors
        (422, {"message": {"slug": ["must be unique"]}}, "slug: ['must be unique']"),
        # {"message": "..."}: plain API errors
        (404, {"message": "Not found"}, "Not found"),
    ],
)
def test_superset_error_bodies_are_normalised(status: int, body: dict, expected: str) -> None:
    assert error_message(httpx.Response(status, json=body)) == expected


def test_superset_config_refuses_a_short_secret_key(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="32"):
        write_superset_config(tmp_path, secret_key="short")


def test_superset_config_keeps_metadata_in_the_home_and_csrf_on(tmp_path: Path) -> None:
    text = write_superset_config(tmp_path, secret_key="k" * 40).read_text()
    assert f"sqlite:///{tmp_path.resolve()}/superset.db" in text
    assert "PREVENT_UNSAFE_DB_CONNECTIONS = False" in text
    assert "WTF_CSRF_ENABLED = True" in text
    assert "TALISMAN_ENABLED = False" in text


def test_demo_data_is_deterministic(tmp_path: Path) -> None:
    import sqlite3

    def digest(path: Path) -> list[tuple]:
        with sqlite3.connect(path) as conn:
            return conn.execute(
                "SELECT region, ROUND(SUM(amount), 2) FROM sales GROUP BY 1"
            ).fetchall()

    first = digest(generate_sales_db(tmp_path / "a.db"))
    assert first == digest(generate_sales_db(tmp_path / "b.db"))
    assert len(first) == 4


def test_prod_gets_the_common_dashboards_and_dev_gets_one_more() -> None:
    assert {d.slug for d in dashboards_for("prod")} == COMMON_SLUGS
    assert {d.slug for d in dashboards_for("dev")} == {d.slug for d in DASHBOARDS}
    assert BROKEN_CHART in {c.name for c in charts_for("prod")}


def test_environments_file_lists_every_instance(tmp_path: Path) -> None:
    env = SandboxEnv("dev", "Development", "http://127.0.0.1:1", "admin", 'p"w', "dev",
                     tmp_path, 1, 1)  # fmt: skip
    sandbox = Sandbox([env], tmp_path, paths=None)  # type: ignore[arg-type]
    path = sandbox.write_environments_file(tmp_path / "envs" / "environments.toml")
    assert tomllib.loads(path.read_text())["environment"] == [
        {"id": "dev", "name": "Development", "url": "http://127.0.0.1:1",
         "username": "admin", "password": 'p"w', "tier": "dev"}
    ]  # fmt: skip
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
