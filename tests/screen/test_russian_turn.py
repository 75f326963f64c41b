"""A Russian page reads Russian: a refused call restored from the
conversation is said in the page's words (never the server's English sentence or JSON),
a long task's progress lines and the generated documentation's headings come from the
catalog in the turn's language."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from app.facts import Refusal
from app.i18n import catalog, progress_line
from app.screen.chat_model import AgentChatModel
from app.screen.items import ChatMessage, ToolCall
from app.screen.stream import StreamProcessor
from app.superset.quality import documentation_markdown
from tests.ui.fakes import FakeClock, FakeConversation

LATIN_WORD = re.compile(r"\b[A-Za-z]{3,}\b")


def _refused_row(code: str = "not_available") -> dict:
    refusal = Refusal(
        code=code,  # type: ignore[arg-type]
        tool_name="list_environments",
        message="'list_environments' is not offered on a dashboard page",
        page="dashboard",
        env_id="prod",
    )
    text = refusal.tool_result()
    return {"call_id": "r1", "tool_name": "list_environments", "status": "failed",
            "result": text, "error": text, "position": 1}  # fmt: skip


def test_a_restored_context_refusal_is_said_in_russian_with_no_english() -> None:
    model = AgentChatModel(lang="ru", clock=FakeClock())
    StreamProcessor(model).restore(
        FakeConversation(
            messages=[{"role": "user", "text": "список окружений", "position": 0}],
            tool_calls=[_refused_row()],
        )
    )
    assert not [i for i in model.items if isinstance(i, ToolCall)]  # no card of raw JSON
    said = [i.text for i in model.items if isinstance(i, ChatMessage)][1]
    assert (
        said
        == "«list_environments» недоступен на странице дашборда: контекст страницы его исключает."
    )
    assert LATIN_WORD.findall(said.replace("list_environments", "")) == []


def test_a_call_cancelled_on_its_card_is_restored_as_its_card() -> None:
    model = AgentChatModel(lang="ru", clock=FakeClock())
    row = {**_refused_row("cancelled"), "status": "cancelled"}
    StreamProcessor(model).restore(FakeConversation(tool_calls=[row]))
    assert [i.status for i in model.items if isinstance(i, ToolCall)] == ["cancelled"]


@pytest.mark.parametrize("key", sorted(catalog("progress")))
def test_every_progress_line_has_a_russian_form(key: str) -> None:
    en, ru = catalog("progress")[key]
    assert en != ru and re.search("[а-я]", ru)


def test_a_migrations_progress_lines_are_said_in_the_turns_language() -> None:
    line = progress_line("importing", "ru", i=1, n=2, title="Sales")
    assert line == "импортирую дашборд 1 из 2: Sales"
    assert progress_line("importing", "en", i=1, n=2, title="Sales") == (
        "importing dashboard 1 of 2: Sales"
    )
    assert progress_line("verifying", "ru") == "проверяю целевое окружение"


def _bundle() -> SimpleNamespace:
    chart = {"slice_name": "Revenue", "viz_type": "table", "description": None}
    return SimpleNamespace(
        title="Sales",
        id=7,
        dashboard={"slug": "sales", "published": True, "owners": [], "changed_on": "x"},
        charts=[chart],
    )


def test_generated_documentation_headings_are_russian_on_a_russian_turn() -> None:
    ds = {"id": 1, "table_name": "sales", "schema": "main", "database": {"database_name": "DB"},
          "columns": [{"column_name": "amount", "type": "REAL"}],
          "metrics": [{"metric_name": "revenue", "expression": "SUM(amount)"}]}  # fmt: skip
    md = documentation_markdown("prod", _bundle(), [ds], "ru")
    assert "## Графики (1)" in md and "## Датасеты (1)" in md
    assert "| График | Тип | Датасет | Описание |" in md
    assert "| Столбец | Тип | Описание |" in md and "| Метрика | Выражение |" in md
    assert "- Опубликован: да" in md
    for english in ("Charts", "Datasets", "Column", "Published", "Owners", "Environment"):
        assert english not in md
    assert "## Charts (1)" in documentation_markdown("prod", _bundle(), [ds])  # English default
