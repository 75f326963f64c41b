"""A small, correct Rison encoder for Superset's ``q=`` query parameter.

Rison (https://github.com/Nanonid/rison) is JSON with URL-friendlier syntax:
objects ``(k:v,k2:v2)``, arrays ``!(a,b)``, ``!t``/``!f``/``!n`` for true/false/null,
and strings either bare (when they contain only "id" characters and do not look like
a number) or quoted with ``'…'`` where ``!`` and ``'`` are escaped with ``!``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

# Characters Rison allows in an unquoted identifier (anything else forces quoting).
_NOT_IDCHAR = " '!:(),*@$"
_ID_OK = re.compile(r"^[^\-0-9" + re.escape(_NOT_IDCHAR) + r"][^" + re.escape(_NOT_IDCHAR) + r"]*$")


def _quote(s: str) -> str:
    if s and _ID_OK.match(s):
        return s
    return "'" + s.replace("!", "!!").replace("'", "!'") + "'"


def dumps(value: Any) -> str:
    """Encode a JSON-able Python value as Rison."""
    if value is None:
        return "!n"
    if value is True:
        return "!t"
    if value is False:
        return "!f"
    if isinstance(value, int | float):
        text = repr(value) if isinstance(value, float) else str(value)
        return text.replace("+", "")
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, Mapping):
        items = ",".join(f"{_quote(str(k))}:{dumps(v)}" for k, v in value.items())
        return f"({items})"
    if isinstance(value, Sequence):
        return "!(" + ",".join(dumps(v) for v in value) + ")"
    raise TypeError(f"cannot encode {type(value).__name__} as rison")
