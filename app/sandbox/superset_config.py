"""The ``superset_config.py`` every sandbox instance (and the bootstrap) runs with.

Settings follow the verified notes: a random SECRET_KEY of 32+ characters, the
metadata DB in SQLite inside the instance home, SQLite data sources allowed,
the security API on and CSRF on (as on real instances). Talisman is off unless asked
for (the prod instance runs with it: ``app.sandbox.entry``). Row-level security
applies to SQL Lab too (``RLS_IN_SQLLAB``, off by default in 6.1), so a person's rules hold
in every query the agent runs as them. ``extra`` lines end the file (the "Ask the agent"
entry; a test's instance with the act-as security manager).
"""

from __future__ import annotations

from pathlib import Path
from string import Template

CONFIG_TEMPLATE = Template(
    '''"""superset_config.py written by ss-tools (app/sandbox/superset_config.py); do not edit."""

SECRET_KEY = $secret_key
SQLALCHEMY_DATABASE_URI = $db_uri
PREVENT_UNSAFE_DB_CONNECTIONS = False
FAB_ADD_SECURITY_API = True
TALISMAN_ENABLED = $talisman
WTF_CSRF_ENABLED = True
SESSION_COOKIE_NAME = $cookie_name
CACHE_CONFIG = {"CACHE_TYPE": "SimpleCache", "CACHE_DEFAULT_TIMEOUT": 300}
DATA_CACHE_CONFIG = {"CACHE_TYPE": "NullCache"}
RATELIMIT_ENABLED = False
AUTH_RATE_LIMITED = False
FEATURE_FLAGS = {**globals().get("FEATURE_FLAGS", {}), "RLS_IN_SQLLAB": True}
$extra'''
)


def write_superset_config(
    home: Path,
    *,
    secret_key: str,
    cookie_name: str = "session",
    talisman: bool = False,
    extra: str = "",
) -> Path:
    """Write ``home/superset_config.py`` for a metadata DB at ``home/superset.db``."""
    if len(secret_key) < 32:
        raise ValueError("Superset's SECRET_KEY must have at least 32 characters")
    home.mkdir(parents=True, exist_ok=True)
    db_uri = f"sqlite:///{(home / 'superset.db').resolve()}?check_same_thread=false"
    path = home / "superset_config.py"
    path.write_text(
        CONFIG_TEMPLATE.substitute(
            secret_key=repr(secret_key),
            db_uri=repr(db_uri),
            cookie_name=repr(cookie_name),
            talisman=repr(talisman),
            extra=extra,
        ),
        encoding="utf-8",
    )
    return path


def superset_env(base: dict[str, str], *, venv: Path, home: Path) -> dict[str, str]:
    """The environment of a Superset process: ``base`` minus the app's Python settings."""
    env = {
        k: v
        for k, v in base.items()
        if k not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"} and not k.startswith("SS_TOOLS_")
    }
    env.update(
        {
            "PATH": f"{venv / 'bin'}:{env.get('PATH', '/usr/local/bin:/usr/bin:/bin')}",
            "SUPERSET_HOME": str(home),
            "SUPERSET_CONFIG_PATH": str(home / "superset_config.py"),
            "FLASK_APP": "superset.app:create_app()",
            "PYTHONUNBUFFERED": "1",
            "SUPERSET_LOAD_EXAMPLES": "no",
        }
    )
    return env
