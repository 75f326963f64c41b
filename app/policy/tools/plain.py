"""Free text a tool stores where a terminal shows it again: no control characters.

Git keeps a commit message, an author name and a branch name as given, and ``git log`` or
``git branch`` in a terminal then runs what they hold: ESC sequences (colours, a cleared
screen, a new window title), OSC-8 hyperlinks whose text hides their target, BEL. So an
args model refuses them (:func:`app.text.control_character`):

* :data:`PlainText` — a commit message: newline and tab are allowed, any other control
  character (C0, DEL, C1: ESC, BEL, CR, the 8-bit CSI …) is refused;
* :data:`OneLineText` — a branch name: no control character at all.

A refusal is the args model's error (``control_characters``, ``control_characters_line``)
named by its field: a call's ``invalid_arguments`` refusal in a chat or over MCP, a 422
on the API. (:class:`app.gitrepo.GitRepo` checks again below, and the author name too.)
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator
from pydantic_core import PydanticCustomError

from app.text import control_character

TEXT_ALLOWED = "\n\t"


def plain_text(value: str) -> str:
    if (found := control_character(value, TEXT_ALLOWED)) is not None:
        raise PydanticCustomError(
            "control_characters",
            "must not hold control characters (found {found}); only newline and tab are allowed",
            {"found": found},
        )
    return value


def one_line_text(value: str) -> str:
    if (found := control_character(value)) is not None:
        raise PydanticCustomError(
            "control_characters_line",
            "must not hold control characters, newlines or tabs (found {found})",
            {"found": found},
        )
    return value


PlainText = Annotated[str, AfterValidator(plain_text)]
OneLineText = Annotated[str, AfterValidator(one_line_text)]
