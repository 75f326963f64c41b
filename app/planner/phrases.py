"""The offline planner's engine's sentences, in English and Russian (the ``planner``
sections of ``app/strings.toml``), filled by :func:`say`: the steps, the questions, the
refusals and failures, and the pieces of answers several tool families share.

A tool's own words are not here. What each tool can do and an example request for it are
declared with the tool (``can``, ``example``; see :mod:`app.planner.known`). A call's own
five forms are its entry's data, and the sentences of its answers about a result are its
family's table ``SAID`` (``app/planner/tools/<family>.py``, or ``<family>_answers.py``
beside it), read through :func:`sayer`."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from app.i18n import catalog, said
from app.planner.text import Lang

_TEXT = catalog("planner")
ARG_NAMES = catalog("planner_arg_names")


def say(key: str, lang: Lang, **values: object) -> str:
    return said(_TEXT[key], lang, **values)


def pick(pair: tuple[str, str], lang: Lang) -> str:
    return said(pair, lang)


def sayer(table: Mapping[str, tuple[str, str]]) -> Callable[..., str]:
    """:func:`say` over a family's own table (``SAID``): ``sayer(SAID)(key, lang, **values)``."""

    def say_it(key: str, lang: Lang, **values: object) -> str:
        return said(table[key], lang, **values)

    return say_it
