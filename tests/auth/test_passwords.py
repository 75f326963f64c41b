"""scrypt password hashing: format, round trip, refusals."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.auth import hash_password, verify_password
from app.settings import Settings

STORED = hash_password("correct horse battery")


def test_hash_has_the_documented_scrypt_format() -> None:
    scheme, n, r, p, salt, digest = STORED.split("$")
    assert (scheme, n, r, p) == ("scrypt", str(2**14), "8", "1")
    assert len(salt) == 24 and len(digest) == 44  # base64 of 16 and 32 bytes


def test_same_password_hashes_differently_each_time() -> None:
    assert hash_password("same") != hash_password("same")


@pytest.mark.parametrize(
    ("password", "stored", "expected"),
    [
        # the right password verifies
        ("correct horse battery", STORED, True),
        # one character off is refused
        ("correct horse batterY", STORED, False),
        # the empty password is refused
        ("", STORED, False),
        # non-ASCII passwords round-trip (UTF-8)
        ("пароль-ü-密码", hash_password("пароль-ü-密码"), True),
        # a stored value of another scheme is refused, not crashed on
        ("x", "bcrypt$2b$12$abc", False),
        # a truncated hash is refused
        ("correct horse battery", STORED.rsplit("$", 1)[0], False),
        # broken base64 is refused
        ("correct horse battery", STORED[:-6] + "!!!!!!", False),
        # absurd cost parameters (a tampered row) are refused without running the KDF
        ("x", "scrypt$1073741824$8$1$AAAAAAAAAAAAAAAAAAAAAA==$" + "A" * 43 + "=", False),
        # n must be a power of two
        ("x", "scrypt$1000$8$1$AAAAAAAAAAAAAAAAAAAAAA==$" + "A" * 43 + "=", False),
        # no stored hash at all (user without password)
        ("x", None, False),
        # an empty stored hash
        ("x", "", False),
    ],
    ids=[  # fixed names: the hashes are salted afresh in each process (pytest-xdist's workers)
        "right",
        "one-off",
        "empty-password",
        "non-ascii",
        "other-scheme",
        "truncated",
        "broken-base64",
        "absurd-cost",
        "n-not-power-of-two",
        "no-hash",
        "empty-hash",
    ],
)
def test_verify_password(password: str, stored: str | None, expected: bool) -> None:
    assert verify_password(password, stored) is expected


def test_production_hashes_at_the_real_scrypt_cost() -> None:
    """The suite hashes cheaply (SS_TOOLS_SCRYPT_N in tests/conftest.py); a product
    started without that setting keeps scrypt's real cost, N = 2**14."""
    assert Settings.model_fields["scrypt_n"].default == 2**14
    scheme, n, *_ = hash_password("x").split("$")
    assert (scheme, n) == ("scrypt", str(2**14))


def test_the_suite_hashes_at_its_cheap_cost_and_verifies_like_production() -> None:
    assert Settings().scrypt_n == 16  # this environment (tests/conftest.py)
    cheap = hash_password("pw", n=Settings().scrypt_n)
    assert cheap.split("$")[1] == "16"
    assert verify_password("pw", cheap) and not verify_password("pW", cheap)


@pytest.mark.parametrize("bad", [3, 1000, 2**21, 1])
def test_a_scrypt_cost_that_is_no_power_of_two_or_out_of_bounds_is_refused(bad: int) -> None:
    with pytest.raises(ValidationError, match="scrypt_n"):
        Settings(scrypt_n=bad)
