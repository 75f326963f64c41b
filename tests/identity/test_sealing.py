"""Linked accounts' refresh tokens are sealed with keys from the settings; keys rotate
without losing links."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.errors import ConfigError
from app.settings import Settings
from app.superset.sealing import Sealer, SealError, configured_secrets

OLD = "old-key-" + "o" * 40
NEW = "new-key-" + "n" * 40


def test_a_sealed_secret_opens_and_does_not_show_its_text() -> None:
    sealer = Sealer([NEW])
    token = sealer.seal("refresh-token-value")
    assert "refresh-token-value" not in token
    assert sealer.open(token) == "refresh-token-value"


def test_a_new_key_in_front_still_opens_what_the_old_key_sealed() -> None:
    sealed_before = Sealer([OLD]).seal("r1")
    rotated = Sealer([NEW, OLD])
    assert rotated.open(sealed_before) == "r1"
    resealed = rotated.rotate(sealed_before)
    assert Sealer([NEW]).open(resealed) == "r1"  # the old key may go now
    with pytest.raises(SealError):
        Sealer([NEW]).open(sealed_before)


@pytest.mark.parametrize(
    "change",
    [
        # a flipped character in the middle (the HMAC covers every byte)
        lambda t: t[:40] + ("A" if t[40] != "A" else "B") + t[41:],
        # cut short
        lambda t: t[:-5],
        # not a token at all
        lambda t: "not a token",
    ],
)
def test_a_changed_sealed_value_never_opens(change) -> None:  # type: ignore[no-untyped-def]
    sealer = Sealer([NEW])
    with pytest.raises(SealError):
        sealer.open(change(sealer.seal("r1")))


def test_a_short_key_is_refused() -> None:
    with pytest.raises(ConfigError, match="at least 32"):
        Sealer(["short"])


def test_keys_come_from_the_setting_or_its_file_newest_first(tmp_path: Path) -> None:
    assert configured_secrets(Settings(secret_key=f"{NEW}, {OLD}")) == [NEW, OLD]
    keys = tmp_path / "keys"
    keys.write_text(f"{NEW}\n\n{OLD}\n")
    assert configured_secrets(Settings(secret_key_file=keys, dev=False)) == [NEW, OLD]
    assert configured_secrets(Settings(data_dir=tmp_path, dev=False)) == []
