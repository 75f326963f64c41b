"""The offline planner's sentences, in English and Russian (the ``planner`` sections of
``app/strings.toml``): every sentence it says is one of these, filled by :func:`say`.

What each tool can do and an example request for it are not here: they are declared with
the tool (``can``, ``example``; see :mod:`app.planner.known`). A call's own five forms
are its entry's data (``app/planner/tools/<family>.py``)."""

from __future__ import annotations

from app.i18n import catalog, said
from app.planner.text import Lang

_TEXT = catalog("planner")
ARG_NAMES = catalog("planner_arg_names")


def say(key: str, lang: Lang, **values: object) -> str:
    return said(_TEXT[key], lang, **values)


def pick(pair: tuple[str, str], lang: Lang) -> str:
    return said(pair, lang)
