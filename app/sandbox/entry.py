"""The sandbox's Superset instances carry the "Ask the agent" entry (``deploy/superset/``).

Each instance's ``superset_config.py`` installs it as a site would
(``FLASK_APP_MUTATOR = ask_agent_mutator(...)``), with one difference: its two settings
come from ``<home>/ask_agent.json``, which :func:`point_entry` writes, so the link follows
the product's URL (another port in every test) without restarting Superset. Until it is
pointed, an instance shows no entry.

The prod instance runs like a site in production: Talisman on with Superset's default
content security policy (``script-src 'self' 'strict-dynamic'`` + a nonce); dev keeps it
off, as a developer's instance often does. Both offer English and Russian (Superset's
language menu), so the Russian label can be seen.
"""

from __future__ import annotations

import json
from pathlib import Path

from app.sandbox.common import write_private

#: the folder that holds the ``ask_agent`` package (put on the instances' sys.path)
DEPLOY_DIR = Path(__file__).resolve().parents[2] / "deploy" / "superset"
SETTINGS_FILE = "ask_agent.json"
#: the config's first line of the entry's block (``is_installed`` looks for it)
MARKER = "# the ss-tools agent entry (deploy/superset/ask_agent)"


def cookie_name(env_id: str) -> str:
    """The instance's session cookie. Every instance and the product are on 127.0.0.1, and
    a browser keeps cookies by host, not port: with one name ("session") signing in to one
    signed the others (and the product) out, so a click from a dashboard to the agent
    landed at the sign-in every time."""
    return f"superset_{env_id}_session"


def talisman_on(env_id: str) -> bool:
    """Whether the instance runs with Superset's default CSP (the prod one)."""
    return env_id == "prod"


def config_block(home: Path) -> str:
    """The lines of ``superset_config.py`` that install the entry and its languages."""
    settings = (home / SETTINGS_FILE).resolve()
    return "\n".join(
        [
            MARKER,
            "import sys as _sys",
            f"_sys.path.insert(0, {str(DEPLOY_DIR)!r})",
            "from ask_agent import ask_agent_mutator",
            f"FLASK_APP_MUTATOR = ask_agent_mutator(settings_file={str(settings)!r})",
            'LANGUAGES = {"en": {"flag": "us", "name": "English"},'
            ' "ru": {"flag": "ru", "name": "Russian"}}',
            "",
        ]
    )


def is_installed(home: Path) -> bool:
    """Whether the instance in ``home`` was configured with the entry."""
    try:
        return MARKER in (home / "superset_config.py").read_text(encoding="utf-8")
    except OSError:
        return False


def point_entry(homes: dict[str, Path], product_url: str) -> None:
    """Point each instance's entry (env id -> home) at the product's URL (read by the
    instance at its next page, no restart)."""
    for env_id, home in homes.items():
        settings = {"product_url": product_url.rstrip("/"), "env_id": env_id}
        write_private(home / SETTINGS_FILE, json.dumps(settings) + "\n")


def product_url(host: str, port: int) -> str:
    """The product's URL as a browser on this machine reaches it."""
    reachable = "127.0.0.1" if host in ("0.0.0.0", "", "::") else host
    if ":" in reachable:  # an IPv6 literal
        reachable = f"[{reachable}]"
    return f"http://{reachable}:{port}"
