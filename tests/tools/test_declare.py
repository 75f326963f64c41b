"""What a tool declaration leaves out follows from what it says (``app.agent.tools.declare``)."""

from __future__ import annotations

from typing import Any

import pytest

from app.agent.tools.base import EnvArgs, NoArgs, ToolDeps
from app.agent.tools.declare import LONG_TASK_TIMEOUT_S, Family
from app.policy import CardLine, Phrase


def _declare(family: Family, **options: Any) -> None:
    async def look(args: EnvArgs, deps: ToolDeps) -> str:
        """Looks at an environment."""
        return "ok"

    said = {"risk": "read", "can": Phrase("look here", "посмотреть"), **options}
    family.tool(example=Phrase("Look", "Посмотри"), **said)(look)


def test_a_read_declared_with_risk_can_and_example_only_gets_the_usual_rest() -> None:
    family = Family("t")
    _declare(family)
    decl = family.tools["look"]
    assert decl.args_model is EnvArgs  # the first parameter's annotation
    assert (decl.card.en, decl.card.ru) == ("Look here", "Посмотреть")  # can, capitalised
    assert decl.card.render({}, "dev", "en") == "Look here"
    assert decl.idempotent is True and decl.presentation == "table"
    assert decl.open_world is True and decl.timeout_s is None


def test_a_write_is_not_idempotent_and_shows_facts_unless_it_says_otherwise() -> None:
    plain, said = Family("a"), Family("b")
    _declare(plain, risk="write", long_task=True)
    _declare(said, risk="delete", idempotent=True, presentation="diff", args=NoArgs,
             card=CardLine(en="Look at {env}", ru="Посмотреть {env}"))  # fmt: skip
    assert (plain.tools["look"].idempotent, plain.tools["look"].presentation) == (False, "facts")
    assert plain.tools["look"].timeout_s == LONG_TASK_TIMEOUT_S
    decl = said.tools["look"]
    assert (decl.idempotent, decl.presentation, decl.args_model) == (True, "diff", NoArgs)
    assert decl.card.render({}, "dev", "en") == "Look at dev"


def test_a_tool_whose_first_parameter_names_no_args_model_is_refused() -> None:
    async def unannotated(args, deps):  # type: ignore[no-untyped-def]
        """No annotations."""
        return "x"

    declare = Family("t").tool(risk="read", can=Phrase("x", "x"), example=Phrase("x", "x"))
    with pytest.raises(TypeError, match="annotate its first parameter"):
        declare(unannotated)
