"""environments.toml says whose identity an environment uses; a bad combination stops
start-up with the line and the reason, and a person or assertion environment needs its key."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.errors import ConfigError
from app.parts import build_parts
from app.settings import Settings
from app.superset.environments import parse_environments
from app.superset.registry import load_environments
from app.superset.sealing import KEY_FILE_NAME


def _toml(*tables: str) -> str:
    return "".join("[[environment]]\n" + t.replace(";", "\n") + "\n" for t in tables)


SERVICE = 'id = "s";url = "http://s";password = "x"'


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        # a person environment signs in as each person: a service password would be a fallback
        ('id = "p";url = "http://p";identity = "person";password = "x"',
         r"line 1: environment #1 \('p'\): entry: .*remove password"),
        # nor may it name a service user
        ('id = "p";url = "http://p";identity = "person";username = "admin"',
         r"remove username"),
        ('id = "p";url = "http://p";identity = "person";password_env = "X"',
         r"remove password_env"),
        # an assertion environment signs in no one: no login provider
        ('id = "a";url = "http://a";identity = "assertion";login_provider = "db"',
         r"signs in no one: remove login_provider"),
        # an audience only means something for assertions
        (SERVICE + ';assertion_audience = "x"', r"assertion_audience is only for"),
        # unknown modes and providers are refused, not read as the default
        ('id = "p";url = "http://p";identity = "people"', r"identity: Input should be"),
        ('id = "p";url = "http://p";identity = "person";login_provider = "oauth"',
         r"login_provider: Input should be 'db' or 'ldap'"),
    ],
)  # fmt: skip
def test_a_bad_identity_combination_names_the_line_and_the_reason(
    table: str, expected: str
) -> None:
    with pytest.raises(ConfigError, match=expected):
        parse_environments(_toml(table))


@pytest.mark.parametrize(
    ("table", "identity", "provider"),
    [
        # the default is today's behaviour: the service account
        (SERVICE, "service", "db"),
        # an LDAP site signs people in with provider ldap
        ('id = "p";url = "http://p";identity = "person";login_provider = "ldap"', "person", "ldap"),
        # an SSO site: assertions, nothing else
        ('id = "a";url = "http://a";identity = "assertion"', "assertion", "db"),
    ],
)  # fmt: skip
def test_good_identity_modes_parse_with_no_errors(table: str, identity: str, provider: str) -> None:
    envs, errors = parse_environments(_toml(table))
    assert (envs[0].identity, envs[0].login_provider) == (identity, provider)
    assert errors == {}  # a person environment is not "missing its password"


def test_an_assertion_audience_defaults_to_the_url() -> None:
    envs, _ = parse_environments(
        _toml('id = "a";url = "http://a/";identity = "assertion"',
              'id = "b";url = "http://b";identity = "assertion";assertion_audience = "sso-b"')
    )  # fmt: skip
    assert [e.audience for e in envs] == ["http://a", "sso-b"]


def _envs(tmp_path: Path, *tables: str) -> Path:
    path = tmp_path / "environments.toml"
    path.write_text(_toml(*tables))
    return path


@pytest.mark.parametrize(
    ("table", "missing"),
    [
        # linked accounts are sealed with a key from the settings, never from the database
        ('id = "p";url = "http://p";identity = "person"', "SS_TOOLS_SECRET_KEY"),
        # assertions are signed with the operator's key
        ('id = "a";url = "http://a";identity = "assertion"',
         "SS_TOOLS_SUPERSET_ASSERTION_KEY_FILE"),
    ],
)  # fmt: skip
def test_outside_dev_a_missing_key_stops_start_up(tmp_path: Path, table: str, missing: str) -> None:
    settings = Settings(data_dir=tmp_path, environments_file=_envs(tmp_path, table), dev=False)
    with pytest.raises(ConfigError, match=missing):
        build_parts(settings, registry=load_environments(settings.environments_file))


def test_dev_mode_generates_the_sealing_key_once_into_the_data_dir(tmp_path: Path) -> None:
    envs = _envs(tmp_path, 'id = "p";url = "http://p";identity = "person"')
    settings = Settings(data_dir=tmp_path, environments_file=envs, dev=True)
    first = build_parts(settings)
    key = tmp_path / KEY_FILE_NAME
    assert key.stat().st_mode & 0o777 == 0o600
    text = key.read_text()
    second = build_parts(settings)
    assert key.read_text() == text  # kept across restarts: links stay readable
    for parts in (first, second):
        assert parts.registry.accounts is not None and parts.registry.accounts.sealer is not None
        parts.close()


def test_a_service_only_setup_makes_no_keys(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, environments_file=_envs(tmp_path, SERVICE), dev=True)
    build_parts(settings).close()
    assert not (tmp_path / KEY_FILE_NAME).exists()
