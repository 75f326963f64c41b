"""environments.toml parsing and the environment registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.errors import ConfigError, NoEnvironmentError
from app.superset.environments import Environment, parse_environments
from app.superset.registry import EnvironmentRegistry, load_environments

GOOD = """
[[environment]]
id = "dev"
name = "Development"
url = "http://127.0.0.1:8088/"
username = "admin"
password = "sandbox-pw"
tier = "dev"

[[environment]]
id = "prod"
name = "Production"
url = "https://superset.example.com"
password_env = "SS_TEST_PROD_PASSWORD"
tier = "prod"
"""


def test_good_file_gives_environments_in_file_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SS_TEST_PROD_PASSWORD", "prod-pw")
    envs, errors = parse_environments(GOOD)
    assert [e.id for e in envs] == ["dev", "prod"]
    assert errors == {}
    assert envs[0].url == "http://127.0.0.1:8088"  # trailing slash dropped
    assert envs[1].password_value() == "prod-pw"
    assert "prod-pw" not in repr(envs[1]) and "sandbox-pw" not in repr(envs[0])


def test_missing_password_variable_disables_only_that_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("SS_TEST_PROD_PASSWORD", raising=False)
    path = tmp_path / "environments.toml"
    path.write_text(GOOD)
    reg = load_environments(path)
    assert reg.errors == {"prod": "password variable SS_TEST_PROD_PASSWORD is not set"}
    assert reg.client("dev").env.id == "dev"  # the other environment keeps working
    with pytest.raises(NoEnvironmentError, match="'prod' is unavailable: password variable"):
        reg.client("prod")
    rows = {r["id"]: r for r in reg.describe()}
    assert rows["prod"]["error"].startswith("password variable") and rows["dev"]["error"] is None


def _toml(*tables: str) -> str:
    """[[environment]] tables, one per argument (fields separated by ';')."""
    return "".join("[[environment]]\n" + t.replace(";", "\n") + "\n" for t in tables)


OK_A = 'id = "a";url = "http://a";password = "x";tier = "dev"'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # TOML syntax error: the line of the error and the parser's reason
        ('[[environment]]\nid = "dev"\nurl = "http://x\n', r"line 3: .+"),
        # a required field missing: the table's line, its index and id, and the field
        ("\n\n" + _toml('id = "dev";password = "x"'),
         r"line 3: environment #1 \('dev'\): url: Field required"),
        # a bad URL in the second table names that table's line
        (_toml(OK_A, 'id = "b";url = "ftp://b";password = "x";tier = "dev"'),
         r"line 6: environment #2 \('b'\): url: Value error, must be an http"),
        # ids are reused everywhere, so duplicates are refused
        (_toml(OK_A, OK_A), r"line 6: environment #2 \('a'\): duplicate id 'a'"),
        # an unknown key is a typo, not silently ignored
        (_toml(OK_A + ';pasword = "x"'), r"line 1: .*pasword: Extra inputs"),
        # an id with characters that cannot travel in a UIContext
        (_toml('id = "dev env";url = "http://a";tier = "dev"'), r"line 1: .*id: String should"),
        # a tier outside dev/staging/prod
        (_toml('id = "x";url = "http://a";tier = "qa"'), r"line 1: .*tier: Input should be"),
        # environment must be an array of tables
        ('environment = "dev"\n', r"'environment' must be an array of tables"),
        # a top-level typo
        ('[[environments]]\nid = "x"\n', r"unknown top-level key\(s\): environments"),
    ],
)  # fmt: skip
def test_bad_file_is_refused_with_file_line_and_reason(text: str, expected: str) -> None:
    with pytest.raises(ConfigError, match=r"^my\.toml: " + expected):
        parse_environments(text, source="my.toml")


def test_missing_file_means_no_environments(tmp_path: Path) -> None:
    reg = load_environments(tmp_path / "absent.toml")
    assert reg.environments == {} and reg.errors == {}
    with pytest.raises(NoEnvironmentError, match=r"^no Superset environment configured$"):
        reg.resolve(None)
    with pytest.raises(NoEnvironmentError, match=r"^no Superset environment configured$"):
        reg.get("dev")


@pytest.mark.parametrize("env_id", ["prod-eu", "staging", "dev", "sandbox"])
def test_an_environment_keeps_only_its_configured_tier(env_id: str) -> None:
    # the tier a part acts on is the resolver's (app.policy.risk, tests/policy/test_envs.py)
    assert Environment(id=env_id, url="http://a").tier is None
    assert Environment(id=env_id, url="http://a", tier="dev").tier == "dev"


def test_registry_reports_configured_tiers_in_file_order() -> None:
    reg = EnvironmentRegistry([_env("prod", "prod"), Environment(id="dev", url="http://dev")])
    assert list(reg.configured_tiers().items()) == [("prod", "prod"), ("dev", None)]


def _env(env_id: str, tier: str) -> Environment:
    return Environment(id=env_id, url=f"http://{env_id}", password="x", tier=tier)


@pytest.mark.parametrize(
    ("envs", "env_id", "selected", "expected"),
    [
        ([("dev", "dev"), ("prod", "prod")], "prod", "dev", "prod"),  # the call's env_id wins
        ([("dev", "dev"), ("prod", "prod")], None, "prod", "prod"),  # then the selected env
        ([("prod", "prod")], None, None, "prod"),  # the only env, whatever its tier
    ],
)
def test_resolve_picks_the_environment_of_a_call(
    envs: list[tuple[str, str]], env_id: str | None, selected: str | None, expected: str
) -> None:
    reg = EnvironmentRegistry([_env(i, t) for i, t in envs])
    assert reg.resolve(env_id, selected).id == expected


def test_the_registry_never_guesses_among_several_environments() -> None:
    # the default (first dev) is the resolver's: app.policy.risk.default_env
    reg = EnvironmentRegistry([_env("prod", "prod"), _env("dev2", "dev")])
    with pytest.raises(NoEnvironmentError, match=r"^no environment selected; configured: prod"):
        reg.resolve(None)


def test_describe_shows_the_resolved_tier_when_given_the_resolver() -> None:
    reg = EnvironmentRegistry([Environment(id="test-main", url="http://t", password="x")])
    assert reg.describe()[0]["tier"] is None  # nothing configured
    assert reg.describe(tier_of=lambda env_id: "staging")[0]["tier"] == "staging"


def test_unknown_environment_names_the_configured_ones() -> None:
    reg = EnvironmentRegistry([_env("dev", "dev"), _env("prod", "prod")])
    with pytest.raises(
        NoEnvironmentError, match=r"^unknown environment 'qa'; configured: dev, prod$"
    ):
        reg.get("qa")


async def test_one_pooled_client_per_environment() -> None:
    reg = EnvironmentRegistry([_env("dev", "dev"), _env("prod", "prod")])
    assert reg.client("dev") is reg.client("dev")
    assert reg.client("dev") is not reg.client("prod")
    await reg.aclose()
    assert reg.client("dev") is not None  # a new client after close


def test_describe_never_shows_credentials() -> None:
    reg = EnvironmentRegistry([_env("dev", "dev")])
    assert reg.describe() == [
        {"id": "dev", "name": "dev", "tier": "dev", "url": "http://dev", "error": None}
    ]


def test_a_new_event_loop_gets_its_own_client() -> None:
    import asyncio

    reg = EnvironmentRegistry([_env("dev", "dev")])

    async def grab() -> object:
        return reg.client("dev")

    first, again = asyncio.run(grab()), asyncio.run(grab())
    assert first is not again  # the first loop is closed: its pool cannot be reused
