"""Arguments that name a database object (issue 23 item 3), checked by the args model.

Superset writes some of these names into SQL unescaped (SQL Lab's ``schema`` becomes
``set search_path = "<schema>"``), so a name is refused unless it is plain:

* :data:`SqlIdentifier` — a schema, table or dataset name: a letter (any script) or
  ``_``, then letters, digits, ``_`` or ``$``; at most 128 characters. No quotes, dots,
  spaces, semicolons or control characters.
* :data:`DatabaseName` — a Superset database connection, by id or name: letters,
  digits, spaces and ``_ . - ( )``, starting with a letter or digit; at most 250
  characters.

A refusal is the args model's error (``sql_identifier`` / ``database_name``), named by its
field: a 422 over the API (``invalid_args``), a tool error in a chat or over MCP.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator
from pydantic_core import PydanticCustomError

MAX_IDENTIFIER_CHARS = 128
MAX_DATABASE_NAME_CHARS = 250

_IDENTIFIER = re.compile(r"[^\W\d][\w$]*")
_DATABASE_NAME = re.compile(r"[^\W_][\w .()-]*")


def sql_identifier(value: str) -> str:
    if len(value) > MAX_IDENTIFIER_CHARS or not _IDENTIFIER.fullmatch(value):
        raise PydanticCustomError(
            "sql_identifier",
            "must be a plain identifier: a letter or _, then letters, digits, _ or $ "
            "(at most {max_length} characters; no quotes, dots, spaces or semicolons)",
            {"max_length": MAX_IDENTIFIER_CHARS},
        )
    return value


def database_name(value: str) -> str:
    if len(value) > MAX_DATABASE_NAME_CHARS or not _DATABASE_NAME.fullmatch(value):
        raise PydanticCustomError(
            "database_name",
            "must be a database id or name: letters, digits, spaces and _ . - ( ) "
            "(at most {max_length} characters; no quotes or semicolons)",
            {"max_length": MAX_DATABASE_NAME_CHARS},
        )
    return value


SqlIdentifier = Annotated[str, AfterValidator(sql_identifier)]
DatabaseName = Annotated[str, AfterValidator(database_name)]
