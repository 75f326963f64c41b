"""A tool is a spec (``app.policy.tools.declare``: what a spec leaves out follows from what
it says) and an implementation (``app.agent.tools.base``: ``@family.implements``)."""

from __future__ import annotations

from typing import Any

import pytest

from app.agent.tools.base import Family, ToolDeps
from app.policy import CardLine, Phrase, ToolSpec
from app.policy.tools.base import EnvArgs, NoArgs
from app.policy.tools.declare import LONG_TASK_TIMEOUT_S, SpecFamily


def _spec(family: SpecFamily, **options: Any) -> ToolSpec:
    said = {"args": EnvArgs, "risk": "read", "can": Phrase("look here", "посмотреть"), **options}
    return family.spec("look", description="Looks at an environment.",
                       example=Phrase("Look", "Посмотри"), **said)  # fmt: skip


def test_a_read_declared_with_risk_can_and_example_only_gets_the_usual_rest() -> None:
    spec = _spec(SpecFamily("t"))
    assert spec.args_model is EnvArgs and spec.family == "t"
    assert (spec.card.en, spec.card.ru) == ("Look here", "Посмотреть")  # can, capitalised
    assert spec.describe({}, "dev", "en") == "Look here"
    assert spec.idempotent is True and spec.presentation == "table"
    assert spec.open_world is True and spec.timeout_s is None and spec.long_task is False
    assert spec.example_prompt == "Look" and spec.confirm == "auto"
    assert spec.roles == frozenset({"admin", "analyst"}) and spec.affinity == frozenset()


def test_a_write_is_not_idempotent_and_shows_facts_unless_it_says_otherwise() -> None:
    plain = _spec(SpecFamily("a"), risk="write", long_task=True)
    said = _spec(SpecFamily("b"), risk="delete", idempotent=True, presentation="diff",
                 args=NoArgs, card=CardLine(en="Look at {env}", ru="Посмотреть {env}"))  # fmt: skip
    assert (plain.idempotent, plain.presentation) == (False, "facts")
    assert plain.timeout_s == LONG_TASK_TIMEOUT_S and plain.long_task
    assert plain.roles == frozenset({"admin"})  # a new write is closed by default
    assert (said.idempotent, said.presentation, said.args_model) == (True, "diff", NoArgs)
    assert said.describe({}, "dev", "en") == "Look at dev"
    assert said.mcp_hints() == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": True,
        "openWorldHint": True,
    }


def test_a_spec_needs_a_description_an_args_model_and_a_new_name() -> None:
    family = SpecFamily("t")
    _spec(family)
    with pytest.raises(ValueError, match="declared twice in family 't'"):
        _spec(family)
    with pytest.raises(ValueError, match="needs a description"):
        family.spec("blank", args=NoArgs, risk="read", description="  ",
                    can=Phrase("x", "x"), example=Phrase("x", "x"))  # fmt: skip
    with pytest.raises(TypeError, match="args must be a ToolArgs model"):
        family.spec("loose", args=dict, risk="read", description="D.",  # type: ignore[arg-type]
                    can=Phrase("x", "x"), example=Phrase("x", "x"))  # fmt: skip


def test_the_description_is_put_on_one_line() -> None:
    spec = SpecFamily("t").spec(
        "look",
        args=NoArgs,
        risk="read",
        description="""Looks at things.
        Returns what it saw.""",
        can=Phrase("look", "смотреть"),
        example=Phrase("Look", "Смотри"),
    )
    assert spec.description == "Looks at things. Returns what it saw."


def test_an_implementation_is_its_specs_async_function_typed_by_its_args_model() -> None:
    specs = SpecFamily("t")
    spec = _spec(specs)
    family = Family(specs)
    assert family.missing() == ["look"]

    async def look(args: EnvArgs, deps: ToolDeps) -> str:
        return "ok"

    assert family.implements("look")(look) is look  # by name, or by the spec itself
    decl = family.tools["look"]
    assert decl.spec is spec and decl.fn is look and family.missing() == []
    # the spec's fields read through the declaration
    assert (decl.name, decl.family, decl.risk, decl.args_model) == ("look", "t", "read", EnvArgs)
    assert decl.mcp_hints() == spec.mcp_hints() and decl.card is spec.card
    with pytest.raises(ValueError, match="implemented twice in family 't'"):
        family.implements(spec)(look)


def test_an_implementation_that_does_not_match_its_spec_is_refused() -> None:
    specs = SpecFamily("t")
    _spec(specs)
    other = _spec(SpecFamily("u"))
    family = Family(specs)

    async def look(args: NoArgs, deps: ToolDeps) -> str:  # not the spec's args model
        return "x"

    async def glance(args: EnvArgs, deps: ToolDeps) -> str:  # not the spec's name
        return "x"

    def blocking(args: EnvArgs, deps: ToolDeps) -> str:
        return "x"

    blocking.__name__ = "look"
    with pytest.raises(TypeError, match="annotate its first parameter with its spec's args"):
        family.implements("look")(look)
    with pytest.raises(ValueError, match="must be named 'look', not 'glance'"):
        family.implements("look")(glance)
    with pytest.raises(TypeError, match="must be an async function"):
        family.implements("look")(blocking)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="declares no spec 'peek'"):
        family.implements("peek")
    with pytest.raises(ValueError, match="not the one family 't' declares"):
        family.implements(other)
