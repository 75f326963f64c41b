"""``python main.py superset ...`` and ``users set-superset-username`` for operators (the
``link`` command against a real Superset: tests/identity/test_identity_sandbox.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import users_main
from app.cli_superset import superset_main
from app.settings import Settings
from app.store import superset_links as store
from app.store.db import Database
from app.store.users import get_user_by_name
from app.superset.sealing import Sealer, configured_secrets
from tests.server_proc import ROOT, server_env


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    envs = tmp_path / "environments.toml"
    envs.write_text('[[environment]]\nid = "dev"\nurl = "http://x"\nidentity = "person"\n')
    return Settings(data_dir=tmp_path, dev=True, environments_file=envs)


def _row(settings: Settings, user: str, sealed: str) -> None:
    db = Database.open(settings.db_url)
    with db.session() as s:
        store.save_link(
            s,
            store.SupersetLink(
                user_id=user, env_id="dev", superset_username=user, sealed_token=sealed
            ),
        )
    db.dispose()


def test_list_shows_links_without_secrets_and_unlink_forgets(settings: Settings, capsys) -> None:
    assert superset_main(["list"], settings=settings) == 0
    assert "(no links)" in capsys.readouterr().out
    sealer = Sealer(configured_secrets(settings))
    _row(settings, "ann", sealer.seal("refresh-secret"))
    assert superset_main(["list"], settings=settings) == 0
    out = capsys.readouterr().out
    assert "ann" in out and "active" in out and "refresh-secret" not in out
    assert superset_main(["unlink", "dev", "ann"], settings=settings) == 0
    assert superset_main(["unlink", "dev", "ann"], settings=settings) == 1
    assert "no link of 'ann'" in capsys.readouterr().err


def test_rotate_keys_reseals_every_link_with_the_newest_key(
    settings: Settings, tmp_path: Path, capsys
) -> None:
    old, new = "o" * 40, "n" * 40
    _row(settings, "ann", Sealer([old]).seal("r-ann"))
    rotated = Settings(**{**settings.model_dump(exclude_unset=True), "secret_key": f"{new},{old}"})
    assert superset_main(["rotate-keys"], settings=rotated) == 0
    assert "sealed 1 link(s)" in capsys.readouterr().out
    db = Database.open(settings.db_url)
    with db.session() as s:
        sealed = store.get_link(s, user_id="ann", env_id="dev").sealed_token
    db.dispose()
    assert Sealer([new]).open(sealed) == "r-ann"  # the old key can go now


def test_public_key_prints_the_assertion_key_as_pem_or_jwks(settings: Settings, capsys) -> None:
    assert superset_main(["public-key"], settings=settings) == 0
    pem = capsys.readouterr().out
    assert pem.startswith("-----BEGIN PUBLIC KEY-----") and "PRIVATE" not in pem
    assert superset_main(["public-key", "--jwks"], settings=settings) == 0
    (key,) = json.loads(capsys.readouterr().out)["keys"]
    assert (key["kty"], key["alg"]) == ("RSA", "RS256") and "d" not in key


def test_set_superset_username_maps_a_user_explicitly(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("SS_TOOLS_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("SS_TOOLS_DATABASE_URL", raising=False)
    assert users_main(["add", "carol", "--role", "analyst", "--password", "pw-12345678"]) == 0
    assert users_main(["set-superset-username", "carol", "c.north"]) == 0
    db = Database.open(Settings().db_url)
    with db.session() as s:
        assert get_user_by_name(s, username="carol").superset_username == "c.north"
    assert users_main(["set-superset-username", "carol", "--clear"]) == 0
    with db.session() as s:
        assert get_user_by_name(s, username="carol").superset_username is None
    db.dispose()
    assert users_main(["set-superset-username", "carol"]) == 2  # a name, or --clear
    assert users_main(["set-superset-username", "nobody", "x"]) == 1


def test_main_py_runs_the_superset_command(settings: Settings, tmp_path: Path) -> None:
    env = server_env(tmp_path, SS_TOOLS_ENVIRONMENTS_FILE=str(settings.environments_file))
    env.pop("SS_TOOLS_DATABASE_URL", None)
    out = subprocess.run(
        [sys.executable, "main.py", "superset", "list"], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "(no links)" in out.stdout
