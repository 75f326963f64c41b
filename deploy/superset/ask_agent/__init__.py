"""An "Ask the agent" entry on every dashboard (and dataset) page of a stock Superset 6.1.

Install it from ``superset_config.py`` (the folder holding this package must be on
Superset's ``PYTHONPATH``, e.g. ``/app/pythonpath`` in Superset's Docker image)::

    from ask_agent import ask_agent_mutator
    FLASK_APP_MUTATOR = ask_agent_mutator(
        product_url="https://agent.example.com",  # where ss-tools agent is served
        env_id="prod",                            # this Superset's id in environments.toml
    )

The product's URL and the environment id are its only settings. What it does, at
start-up, to the Flask app:

* registers a blueprint that serves one static file, ``/ask_agent/static/ask_agent.js``
  (plain JavaScript: no build step, no Node);
* puts one ``<script src=… nonce=… defer>`` tag into every page Superset renders from its
  single-page template (``superset/spa.html``), through the template that file includes
  for exactly this purpose, ``tail_js_custom_extra.html``. The tag goes *before* whatever
  that template already holds (a site's own analytics snippet stays), and it carries the
  request's CSP nonce when Talisman is on, so Superset's default policy
  (``script-src 'self' 'strict-dynamic'`` with a nonce) runs it without ``unsafe-inline``.

The script reads the page's URL (``/superset/dashboard/<id or slug>/``,
``/explore/?datasource_type=table&datasource_id=<id>``), asks Superset's own API from the
person's session for the object's id and title, and shows a link that opens
``<product>/agent?objectType=…&objectId=…&objectName=…&envId=…`` in a new tab. It reads
Superset's locale from the page's bootstrap data: «Спросить агента» in Russian.

``settings_file`` (instead of the two values) names a JSON file ``{"product_url": …,
"env_id": …}`` read again whenever it changes: the local sandbox of ss-tools uses it, so
the link follows the product's port without restarting Superset.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Flask, url_for
from jinja2 import BaseLoader, Environment, TemplateNotFound

__all__ = ["TAIL_TEMPLATE", "AskAgentSettings", "ask_agent_mutator", "init_ask_agent"]

HERE = Path(__file__).resolve().parent
#: the template Superset's spa.html includes at the end of <body> for a site's own scripts
TAIL_TEMPLATE = "tail_js_custom_extra.html"
#: the tag put before that template's own content (Jinja; autoescaped attributes)
SCRIPT_TAG = (HERE / "templates" / "ask_agent_tag.html").read_text(encoding="utf-8")
ENV_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
BLUEPRINT = "ask_agent"
log = logging.getLogger(__name__)


class AskAgentSettings:
    """The entry's two settings, given as values or read from a JSON file whenever the
    file changes. A bad value is refused at start-up (values) or leaves the entry out
    (a file that changed to something wrong; logged once per change)."""

    def __init__(
        self,
        product_url: str | None = None,
        env_id: str | None = None,
        settings_file: str | Path | None = None,
    ) -> None:
        if settings_file is None:
            self._fixed: dict[str, str] | None = checked(product_url, env_id)
            self.settings_file = None
        else:
            self._fixed = None
            self.settings_file = Path(settings_file)
        self._seen: tuple[tuple[int, int, int], dict[str, str] | None] | None = None

    def current(self) -> dict[str, str] | None:
        """``{"product_url", "env_id"}``, or None when the file is missing or wrong."""
        if self._fixed is not None or self.settings_file is None:
            return self._fixed
        try:
            st = self.settings_file.stat()
        except OSError:
            return None
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        if self._seen is None or self._seen[0] != stamp:
            self._seen = (stamp, _read(self.settings_file))
        return self._seen[1]


def checked(product_url: str | None, env_id: str | None) -> dict[str, str]:
    """The settings, or ValueError: an http(s) URL without credentials, query or fragment,
    and an environment id as ``environments.toml`` spells one."""
    url = (product_url or "").strip().rstrip("/")
    if any(ch in url for ch in "\"'<>\\`") or any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise ValueError(f"ask_agent: product_url has characters a URL does not: {url!r}")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"ask_agent: product_url must be an http(s) URL, not {url!r}")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ValueError("ask_agent: product_url takes no credentials, query or fragment")
    if not env_id or not ENV_ID.match(env_id):
        raise ValueError(f"ask_agent: env_id must match {ENV_ID.pattern}, not {env_id!r}")
    return {"product_url": url, "env_id": env_id}


def _read(path: Path) -> dict[str, str] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return checked(data.get("product_url"), data.get("env_id"))
    except (OSError, ValueError, AttributeError) as exc:
        log.warning("ask_agent: %s is not usable: %s", path, exc)
        return None


class TailOverlay(BaseLoader):
    """The app's own loader, except that ``tail_js_custom_extra.html`` starts with the
    entry's script tag (and keeps whatever the site put in that template)."""

    def __init__(self, inner: BaseLoader | None) -> None:
        self.inner = inner

    def get_source(
        self, environment: Environment, template: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        if template != TAIL_TEMPLATE:
            if self.inner is None:
                raise TemplateNotFound(template)
            return self.inner.get_source(environment, template)
        try:
            source, filename, uptodate = (
                self.inner.get_source(environment, template) if self.inner else ("", None, None)
            )
        except TemplateNotFound:
            source, filename, uptodate = "", None, None
        return SCRIPT_TAG + source, filename, uptodate

    def list_templates(self) -> list[str]:
        return self.inner.list_templates() if self.inner is not None else []


def init_ask_agent(app: Flask, settings: AskAgentSettings) -> None:
    """Serve the script and put its tag into Superset's pages (see the module docstring)."""
    blueprint = Blueprint(
        BLUEPRINT,
        __name__,
        static_folder=str(HERE / "static"),
        static_url_path="/ask_agent/static",
    )
    app.register_blueprint(blueprint)
    app.jinja_loader = TailOverlay(app.jinja_loader)  # type: ignore[method-assign]

    def ask_agent_entry() -> dict[str, Any] | None:
        values = settings.current()
        if values is None:
            return None
        return {**values, "src": url_for(f"{BLUEPRINT}.static", filename="ask_agent.js")}

    app.jinja_env.globals["ask_agent_entry"] = ask_agent_entry


def ask_agent_mutator(
    product_url: str | None = None,
    env_id: str | None = None,
    *,
    settings_file: str | Path | None = None,
    then: Callable[[Flask], Any] | None = None,
) -> Callable[[Flask], None]:
    """A ``FLASK_APP_MUTATOR`` that installs the entry; ``then`` is a mutator the site
    already had (it runs afterwards)."""
    settings = AskAgentSettings(product_url, env_id, settings_file)

    def mutate(app: Flask) -> None:
        init_ask_agent(app, settings)
        if then is not None:
            then(app)

    return mutate
