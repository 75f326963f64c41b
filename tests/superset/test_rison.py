"""The Rison encoder used for Superset's q= parameter."""

from __future__ import annotations

import pytest

from app.superset import rison


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        ("abc", "abc"),  # identifier characters stay bare
        ("Sales demo", "'Sales demo'"),  # a space forces quotes
        ("it's", "'it!'s'"),  # a quote is escaped with !
        ("wow!", "'wow!!'"),  # ! is escaped with !
        ("", "''"),  # the empty string is quoted
        ("42", "'42'"),  # a numeric-looking string stays a string
        ("-x", "'-x'"),  # a leading minus would read as a number
        (7, "7"),  # ints bare
        (-1.5, "-1.5"),  # floats bare
        (True, "!t"),  # booleans
        (False, "!f"),
        (None, "!n"),  # null
        ([1, 2], "!(1,2)"),  # arrays
        ([], "!()"),  # empty array
        ({"a": 1, "b": "x y"}, "(a:1,b:'x y')"),  # objects keep key order
        ({}, "()"),  # empty object
        # nesting: objects in arrays in objects
        ({"f": [{"col": "t", "value": "a b"}]}, "(f:!((col:t,value:'a b')))"),
    ],
)  # fmt: skip
def test_values_encode_as_rison(value: object, encoded: str) -> None:
    assert rison.dumps(value) == encoded


def test_unsupported_types_are_refused() -> None:
    with pytest.raises(TypeError):
        rison.dumps(object())
