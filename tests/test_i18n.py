"""Strings in English and Russian, and how the language is chosen."""

from __future__ import annotations

import string
from pathlib import Path

import pytest

from app import i18n
from app.i18n import (
    catalog,
    detect_lang,
    language_from_accept,
    model_name,
    pick_language,
    refusal_text,
    t,
)
from app.llm import OFFLINE_LABEL

SECTIONS = (
    "pages",
    "planner",
    "planner_arg_names",
    "planner_task_states",
    "planner_task_status",
)


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("section", SECTIONS)
def test_every_string_has_english_and_russian_with_the_same_placeholders(section) -> None:
    rows = catalog(section)
    assert rows
    for key, (en, ru) in rows.items():
        assert en.strip() and ru.strip(), key
        assert _fields(en) == _fields(ru), key  # t(key, lang, **fmt) fills both alike


def test_a_catalog_row_that_is_not_a_pair_is_refused_with_its_key(tmp_path: Path) -> None:
    bad = tmp_path / "strings.toml"
    bad.write_text('[pages]\nok = ["Yes", "Да"]\nhalf = ["Only English"]\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"\[pages\] half must be \[English, Russian\]"):
        i18n._load(bad)


@pytest.mark.parametrize(
    ("key", "ru"),
    [
        ("no_context", "Контекст не выбран"),  # the empty pill
        ("confirm", "Подтвердить"),  # the confirm button
        ("cancel", "Отмена"),  # the cancel button
        ("operation_cancelled", "Операция отменена"),  # the agent's message after Cancel
        ("admins_only", "Только для администраторов"),  # the 403 page
    ],
)
def test_contract_strings_in_russian(key, ru) -> None:
    assert t(key, "ru") == ru


@pytest.mark.parametrize(
    ("query", "stored", "accept", "expected"),
    [
        ("ru", "en", "en-US", "ru"),  # ?lang= wins
        (None, "ru", "en-US", "ru"),  # then the user's stored choice
        (None, None, "ru-RU,ru;q=0.9,en;q=0.8", "ru"),  # then the browser
        (None, None, "de-DE,en;q=0.5,ru;q=0.7", "ru"),  # the best supported by q-value
        ("xx", None, "fr", "en"),  # nothing supported: English
        (None, None, None, "en"),  # nothing at all: English
    ],
)
def test_pick_language(query, stored, accept, expected) -> None:
    assert pick_language(query, stored, accept) == expected


def test_malformed_accept_language_is_ignored() -> None:
    assert language_from_accept("ru;q=abc, en;q=0.1") == "en"


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("удали этот дашборд", "ru"),  # Cyrillic: Russian
        ("delete dashboard 42 на проде", "ru"),  # any Cyrillic letter counts
        ("delete dashboard 42", "en"),  # Latin only: English
        ("", "en"),  # nothing: English
    ],
)
def test_detect_lang_of_a_message(text, lang) -> None:
    assert detect_lang(text) == lang


@pytest.mark.parametrize(
    ("error", "lang", "text"),
    [
        # a known refusal code: one sentence in the page's language
        ("confirmation_expired", "ru", "Срок подтверждения истёк. Повторите запрос."),
        ("unauthorized", "en", "Your session has expired. Sign in again."),
        # an unknown code: the generic sentence with the server's reason
        ("teapot", "en", "The request was refused: short and stout"),
    ],
)
def test_refusal_text(error, lang, text) -> None:
    assert refusal_text(error, "short and stout", lang) == text


@pytest.mark.parametrize(
    ("label", "lang", "shown"),
    [
        (
            "offline planner (deterministic, no LLM)",
            "en",
            "offline planner (deterministic, no LLM)",
        ),
        (
            "offline planner (deterministic, no LLM)",
            "ru",
            "офлайн-планировщик (детерминированный, без LLM)",
        ),
        ("gpt-4o @ api.openai.com", "ru", "gpt-4o @ api.openai.com"),
    ],
)
def test_the_answering_model_is_named_in_the_pages_language(label, lang, shown) -> None:
    assert model_name(label, lang) == shown
    assert OFFLINE_LABEL == "offline planner (deterministic, no LLM)"
