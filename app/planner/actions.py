"""What one tool call *is*, phrased three ways in English and Russian:

* :func:`doing` — the step the planner is on ("Checking the health of dashboard 7 in
  dev…" / «Проверяю здоровье дашборда 7 на dev…»);
* :func:`not_doing` — a cancelled call ("Cancelled — not deploying dashboard 42 to prod:
  wrong target." / «Вы отменили деплой дашборда 42 на prod: …»);
* :func:`spelled_out` — the call as a request a person can send, with every object
  named ("delete dashboard 42 in prod" / «удали дашборд 42 на prod»). Sent without the
  page's context, the planner proposes the same call again (tests hold it to that).

Values a person typed or Superset returned are escaped in the sentences (``doing`` and
``not_doing``); the spelled-out request is plain text (a refusal's answer quotes it).
The texts are the tool's entry's ``phrase`` (its family's file): a
:class:`~app.planner.slots.CallText`, or a function that fills one.
"""

from __future__ import annotations

from typing import Any

from app.planner.slots import CallText, Slots, Texts, phrased
from app.planner.text import Lang
from app.planner.tools import knowledge


def _texts(tool: str, args: dict[str, Any], *, raw: bool) -> Texts | None:
    """The call's five texts, or None for a tool the planner has no phrases for."""
    phrase = knowledge(tool).phrase
    if phrase is None:
        return None
    slots = Slots(args, raw)
    return phrased(phrase, slots) if isinstance(phrase, CallText) else phrase(slots)


def doing(tool: str, args: dict[str, Any], lang: Lang, can: str | None = None) -> str:
    """ "Checking the health of dashboard 7 in dev…" (the step the planner is on); a tool
    without phrases here says what its declaration ``can`` do ("Show your session…")."""
    texts = _texts(tool, args, raw=False)
    text = (texts[1] if lang == "ru" else texts[0]) if texts else (can or tool)
    return text[:1].upper() + text[1:] + "…"


def not_doing(tool: str, args: dict[str, Any], lang: Lang) -> str:
    """The cancelled call: "not deploying dashboard 42 to prod" / «деплой дашборда 42…»."""
    texts = _texts(tool, args, raw=False)
    if texts is None:
        return tool
    return texts[2] if lang == "ru" else f"not {texts[0]}"


def spelled_out(tool: str, args: dict[str, Any], lang: Lang) -> str:
    """The call as a request with every object named (plain text, one line)."""
    texts = _texts(tool, args, raw=True)
    text = (texts[4] if lang == "ru" else texts[3]) if texts else tool
    return " ".join(text.split())
