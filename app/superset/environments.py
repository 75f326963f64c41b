"""Superset environments: the ``environments.toml`` file and its ``Environment`` entries.

File format (path from ``SS_TOOLS_ENVIRONMENTS_FILE``, default ``./environments.toml``)::

    [[environment]]
    id = "dev"                          # the env_id everywhere
    name = "Development"
    url = "http://127.0.0.1:8088"
    username = "admin"
    password_env = "SS_DEV_PASSWORD"    # or password = "…" for a local sandbox
    tier = "dev"                        # optional; None here: the policy derives it
    identity = "service"                # whose identity Superset sees (below)
    login_provider = "db"               # what /api/v1/security/login is given: db | ldap

Whose identity a call uses (``identity``; docs/identity.md):

* ``"service"`` (the default): every call signs in as ``username`` with the password;
* ``"person"``: every call runs as the person who asks, through the Superset account they
  linked (``POST /api/superset/accounts``); no service credentials may be given;
* ``"assertion"``: for sites that sign in through SSO; every call carries a short-lived
  assertion signed by ss-tools naming the person's Superset username, which the site's
  security manager trusts (``deploy/superset/``); ``assertion_audience`` (default: the
  URL) is the audience it checks. No credentials and no ``login_provider`` either.

A bad file fails with a :class:`ConfigError` naming the file, the line and the reason.
A missing password variable only disables that one environment (``registry.errors``).
An Environment keeps only its configured ``tier``; the tier a part acts on comes from the
one resolver, :func:`app.policy.risk.tier_of` (configured tier > derived from the id > prod).
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)

from app.errors import ConfigError

Tier = Literal["dev", "staging", "prod"]
IdentityMode = Literal["service", "person", "assertion"]
LoginProvider = Literal["db", "ldap"]
_ID_RE = r"^[A-Za-z0-9_.-]{1,64}$"
_HTTP_URL = re.compile(r"^https?://[^\s/]+")
_AT_LINE = re.compile(r"\(at line (\d+), column (\d+)\)")
_TABLE_HEADER = re.compile(r"^\s*\[\[\s*environment\s*\]\]")
# tomllib's "(at line 3, column 5)" or "(at end of document)" ending its message
_AT_SUFFIX = re.compile(r"(?<!\s)\s*+\(at (?:line \d+, column \d+|end of document)\)$")


class Environment(BaseModel):
    """One Superset instance. ``password`` is a SecretStr: never shown in repr or logs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=_ID_RE)
    name: str = ""
    url: str
    username: str = "admin"
    password: SecretStr | None = None
    password_env: str | None = None
    tier: Tier | None = None
    verify_ssl: bool = True
    timeout: float = Field(default=30.0, gt=0)
    identity: IdentityMode = "service"
    login_provider: LoginProvider = "db"
    assertion_audience: str | None = Field(default=None, min_length=1, max_length=512)

    @field_validator("url")
    @classmethod
    def _http_url(cls, v: str) -> str:
        if not _HTTP_URL.match(v):
            raise ValueError("must be an http:// or https:// URL")
        return v.rstrip("/")

    @model_validator(mode="after")
    def _identity_fits(self) -> Environment:
        """A person or assertion environment holds no service credentials (nothing could
        fall back to them); only a service or person one signs in with a provider."""
        given = self.model_fields_set
        if self.identity != "service":
            extra = [f for f in ("username", "password", "password_env") if f in given]
            if extra:
                raise ValueError(
                    f"identity = {self.identity!r} signs in as each person: remove "
                    f"{', '.join(extra)} (no service account is used)"
                )
        if self.identity == "assertion" and "login_provider" in given:
            raise ValueError("identity = 'assertion' signs in no one: remove login_provider")
        if self.identity != "assertion" and "assertion_audience" in given:
            raise ValueError("assertion_audience is only for identity = 'assertion'")
        return self

    def model_post_init(self, __context: object) -> None:
        if not self.name:
            object.__setattr__(self, "name", self.id)

    @property
    def acts_as_person(self) -> bool:
        """Whether every call runs as the person who asks (person or assertion)."""
        return self.identity != "service"

    @property
    def audience(self) -> str:
        """The audience an assertion for this environment names (``assertion_audience``,
        else the URL)."""
        return self.assertion_audience or self.url

    def password_value(self) -> str:
        """The plain password, for the login request only."""
        return self.password.get_secret_value() if self.password is not None else ""


def _toml_line(exc: tomllib.TOMLDecodeError) -> str:
    m = _AT_LINE.search(str(exc))
    return f"line {m.group(1)}" if m else "end of file"


def _table_lines(text: str) -> list[int]:
    """1-based line numbers of every ``[[environment]]`` header, in order."""
    return [n for n, line in enumerate(text.splitlines(), start=1) if _TABLE_HEADER.match(line)]


def parse_environments(
    text: str, source: str = "environments.toml"
) -> tuple[list[Environment], dict[str, str]]:
    """Parse the file's text into environments and per-environment errors.

    Raises ConfigError for a broken file; returns ``errors[env_id]`` for an environment
    whose password variable is not set (that environment keeps its entry but is
    unavailable).
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        reason = _AT_SUFFIX.sub("", str(exc))
        raise ConfigError(f"{source}: {_toml_line(exc)}: {reason}") from None
    unknown = set(data) - {"environment"}
    if unknown:
        raise ConfigError(f"{source}: unknown top-level key(s): {', '.join(sorted(unknown))}")
    tables = data.get("environment", [])
    if not isinstance(tables, list):
        raise ConfigError(f"{source}: 'environment' must be an array of tables ([[environment]])")
    lines = _table_lines(text)
    envs: list[Environment] = []
    errors: dict[str, str] = {}
    seen: dict[str, int] = {}
    for index, table in enumerate(tables):
        line = f"line {lines[index]}" if index < len(lines) else f"entry {index + 1}"
        label = f"environment #{index + 1}"
        if isinstance(table, dict) and isinstance(table.get("id"), str):
            label += f" ('{table['id']}')"
        try:
            env = Environment.model_validate(table)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"]) or "entry"
            raise ConfigError(f"{source}: {line}: {label}: {field}: {first['msg']}") from None
        if env.id in seen:
            raise ConfigError(
                f"{source}: {line}: {label}: duplicate id '{env.id}' "
                f"(first defined in environment #{seen[env.id] + 1})"
            )
        seen[env.id] = index
        if not env.acts_as_person:  # a person's calls sign in as the person: no password
            env = _with_password(env, errors)
        envs.append(env)
    return envs, errors


def _with_password(env: Environment, errors: dict[str, str]) -> Environment:
    """A service environment with its password read (``password_env``); a missing one is
    noted in ``errors`` (that environment stays listed but unavailable)."""
    if env.password is not None:
        return env
    if not env.password_env:
        errors[env.id] = "no password or password_env configured"
        return env
    # The one allowed read of os.environ outside app.settings: the variable's name is data
    # from environments.toml, so it cannot be a settings field.
    value = os.environ.get(env.password_env)
    if value:
        return env.model_copy(update={"password": SecretStr(value)})
    errors[env.id] = f"password variable {env.password_env} is not set"
    return env


def read_environments_file(path: Path) -> tuple[list[Environment], dict[str, str]]:
    """Read and parse ``path``; a missing file means no environments are configured."""
    path = Path(path)
    if not path.exists():
        return [], {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    return parse_environments(text, source=str(path))
