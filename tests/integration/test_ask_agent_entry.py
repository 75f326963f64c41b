"""The "Ask the agent" artefact for Superset (``deploy/superset/ask_agent``) and how the
sandbox installs it. Its own Python runs inside Superset's venv (Flask, Jinja): those
tests run a script there (no Superset server needed); the whole path, in a browser, is
``tests/browser/test_ask_from_superset.py``."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest

from app.sandbox.common import CachePaths
from app.sandbox.entry import (
    DEPLOY_DIR,
    MARKER,
    SETTINGS_FILE,
    config_block,
    cookie_name,
    is_installed,
    point_entry,
    product_url,
    talisman_on,
)
from app.sandbox.install import is_installed as superset_installed
from app.sandbox.superset_config import write_superset_config
from tests.support import require_or_skip


# ---- the sandbox's side (no Superset) ------------------------------------------------------
def test_each_instance_is_configured_like_a_site_with_the_entry(tmp_path: Path) -> None:
    path = write_superset_config(
        tmp_path, secret_key="k" * 40, cookie_name=cookie_name("prod"),
        talisman=talisman_on("prod"), extra=config_block(tmp_path),
    )  # fmt: skip
    text = path.read_text()
    compile(text, str(path), "exec")  # a config Superset can run
    assert "TALISMAN_ENABLED = True" in text  # prod: Superset's default CSP
    assert "FLASK_APP_MUTATOR = ask_agent_mutator(" in text
    assert repr(str((tmp_path / SETTINGS_FILE).resolve())) in text
    assert repr(str(DEPLOY_DIR)) in text and (DEPLOY_DIR / "ask_agent" / "__init__.py").exists()
    assert '"ru": {"flag": "ru"' in text  # Superset's own language menu offers Russian
    assert is_installed(tmp_path)
    path.write_text(text.replace(MARKER, "# an older sandbox"))
    assert not is_installed(tmp_path)  # a running sandbox without it is started again


@pytest.mark.parametrize(
    ("env_id", "talisman"),
    [("prod", True), ("dev", False), ("staging", False)],  # prod runs as production does
)
def test_which_instances_run_talisman(env_id: str, talisman: bool) -> None:
    assert talisman_on(env_id) is talisman


def test_every_instance_has_its_own_session_cookie() -> None:
    names = {cookie_name(e) for e in ("dev", "prod")}
    assert len(names) == 2 and "session" not in names  # the product's is "session"


def test_pointing_the_entry_writes_each_instances_settings(tmp_path: Path) -> None:
    homes = {"dev": tmp_path / "dev", "prod": tmp_path / "prod"}
    for home in homes.values():
        home.mkdir()
    point_entry(homes, "http://127.0.0.1:8080/")
    for env_id, home in homes.items():
        settings = json.loads((home / SETTINGS_FILE).read_text())
        assert settings == {"product_url": "http://127.0.0.1:8080", "env_id": env_id}


@pytest.mark.parametrize(
    ("host", "port", "url"),
    [
        ("127.0.0.1", 8080, "http://127.0.0.1:8080"),
        ("0.0.0.0", 8080, "http://127.0.0.1:8080"),  # listening everywhere: reach it locally
        ("::1", 9000, "http://[::1]:9000"),  # an IPv6 literal in brackets
        ("agent.local", 80, "http://agent.local:80"),
    ],
)
def test_the_products_url_as_a_browser_here_reaches_it(host: str, port: int, url: str) -> None:
    assert product_url(host, port) == url


# ---- the artefact's Python, in Superset's venv ---------------------------------------------
ARTEFACT_CHECKS = textwrap.dedent(
    r"""
    import json, os, sys, tempfile
    from pathlib import Path
    from flask import Flask, render_template_string
    from jinja2 import DictLoader
    import ask_agent
    from ask_agent import AskAgentSettings, TailOverlay, checked, init_ask_agent

    out = {}
    def refused(url, env):
        try:
            checked(url, env)
        except ValueError:
            return True
        return False
    out["checked"] = {
        "ok": checked("https://agent.example.com/", "prod"),
        "refused": [
            refused(u, e) for u, e in [
                ("ftp://agent.example.com", "prod"),           # not http(s)
                ("https://user:pw@agent.example.com", "prod"),  # credentials
                ("https://agent.example.com/?x=1", "prod"),     # a query
                ('https://a.example/"><script>', "prod"),        # markup
                ("https://agent.example.com", "prod eu"),       # not an env id
                ("", "prod"),                                   # nothing
            ]
        ],
    }

    # the site's own tail template is kept, after the entry's tag
    inner = DictLoader({"tail_js_custom_extra.html": "<!-- the site's analytics -->",
                        "other.html": "other"})
    app = Flask("site")
    app.jinja_loader = inner
    settings_file = Path(tempfile.mkdtemp()) / "ask_agent.json"
    init_ask_agent(app, AskAgentSettings(settings_file=settings_file))
    def tail(nonce=None):
        with app.test_request_context("/superset/dashboard/1/"):
            if nonce:
                app.jinja_env.globals["csp_nonce"] = lambda: nonce
            else:
                app.jinja_env.globals.pop("csp_nonce", None)
            return render_template_string('{% include "tail_js_custom_extra.html" %}')
    out["unpointed"] = tail()
    settings_file.write_text(json.dumps({"product_url": "http://127.0.0.1:9", "env_id": "dev"}))
    out["pointed"] = tail()
    out["nonced"] = tail("N0nce")
    settings_file.write_text(json.dumps({"product_url": "javascript:alert(1)", "env_id": "dev"}))
    out["bad_file"] = tail()
    with app.test_request_context("/"):
        out["other"] = render_template_string('{% include "other.html" %}')
    with app.test_client() as client:
        served = client.get("/ask_agent/static/ask_agent.js")
        out["static"] = [served.status_code, served.mimetype]
    print(json.dumps(out))
    """
)


@pytest.mark.superset
def test_the_artefact_in_superset_s_own_python() -> None:
    paths = CachePaths.default()
    require_or_skip(superset_installed(paths), "Superset's venv is not installed")
    done = subprocess.run(
        [str(paths.python_bin), "-c", ARTEFACT_CHECKS],
        env={"PYTHONPATH": str(DEPLOY_DIR), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["checked"]["ok"] == {"product_url": "https://agent.example.com", "env_id": "prod"}
    assert out["checked"]["refused"] == [True] * 6
    assert out["unpointed"].strip() == "<!-- the site's analytics -->"  # no settings: no tag
    pointed = out["pointed"]
    assert '<script src="/ask_agent/static/ask_agent.js" defer' in pointed
    assert 'data-product-url="http://127.0.0.1:9" data-env-id="dev"' in pointed
    assert "nonce=" not in pointed  # Talisman off: no nonce to carry
    assert pointed.rstrip().endswith("<!-- the site's analytics -->")  # the site's, after ours
    assert ' nonce="N0nce"></script>' in out["nonced"]  # Talisman on: the request's nonce
    assert "<script" not in out["bad_file"]  # a file changed to something wrong: no entry
    assert out["other"] == "other"  # every other template is the site's own
    assert out["static"] == [200, "text/javascript"]


def test_the_products_start_points_the_sandboxs_entry_at_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.sandbox import service
    from app.settings import Settings

    asked: dict[str, object] = {}

    def fake_ensure(envs: object, **kwargs: object) -> tuple[object, bool]:
        asked.update(kwargs)
        raise service.SandboxError("no Superset in this test")

    monkeypatch.setattr(service, "ensure_sandbox", fake_ensure)
    settings = Settings(
        host="0.0.0.0",
        port=8123,
        sandbox=True,
        environments_file=str(tmp_path / "environments.toml"),
    )
    assert service.local_superset(settings, progress=lambda _m: None) is None
    assert asked["product_url"] == "http://127.0.0.1:8123"
