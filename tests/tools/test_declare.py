"""A tool is a spec (``app.tools.declare``: what a spec leaves out follows from what it
says) and an implementation (``app.tools.kit``: ``@runs.implements``): one object."""

from __future__ import annotations

from typing import Any

import pytest

from app.policy import Phrase, ToolSpec
from app.tools.args import EnvArgs, NoArgs
from app.tools.declare import ADMINS, EVERY_PAGE, EVERYONE, LONG_TASK_TIMEOUT_S, Family
from app.tools.kit import Implementations, ToolDeps
from app.tools.undo_plan import Inverse


def _spec(family: Family, **options: Any) -> ToolSpec:
    said = {"args": EnvArgs, "risk": "read", "en": ("look here", "Look"),
            "ru": ("посмотреть", "Посмотри"), **options}  # fmt: skip
    return family.spec("look", description="Looks at an environment.", **said)


def test_a_read_declared_with_risk_can_and_example_only_gets_the_usual_rest() -> None:
    spec = _spec(Family("t"))
    assert spec.args_model is EnvArgs and spec.family == "t"
    assert spec.can == Phrase("look here", "посмотреть")
    assert spec.example == Phrase("Look", "Посмотри")
    assert spec.card is not None
    assert (spec.card.en, spec.card.ru) == ("Look here", "Посмотреть")  # can, capitalised
    assert spec.describe({}, "dev", "en") == "Look here"
    assert spec.idempotent is True and spec.presentation == "table"
    assert spec.open_world is True and spec.timeout_s is None and spec.long_task is False
    assert spec.example_prompt == "Look" and spec.confirm == "auto"
    assert spec.roles == frozenset({"admin", "analyst"}) and spec.affinity == frozenset()


def test_a_write_is_not_idempotent_and_shows_facts_unless_it_says_otherwise() -> None:
    plain = _spec(Family("a"), risk="write", long_task=True)
    said = _spec(Family("b"), risk="delete", idempotent=True, presentation="diff", args=NoArgs,
                 en=("look", "Look", "Look at {env}"),
                 ru=("смотреть", "Смотри", "Посмотреть {env}"))  # fmt: skip
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
    family = Family("t")
    _spec(family)
    with pytest.raises(ValueError, match="declared twice in family 't'"):
        _spec(family)
    with pytest.raises(ValueError, match="needs a description"):
        family.spec("blank", NoArgs, "read", description="  ", en=("x", "x"), ru=("x", "x"))
    with pytest.raises(TypeError, match="args must be a ToolArgs model"):
        family.spec("loose", dict, "read", description="D.",  # type: ignore[arg-type]
                    en=("x", "x"), ru=("x", "x"))  # fmt: skip
    with pytest.raises(ValueError, match=r"en and ru are \(can, example\[, card\]\) alike"):
        family.spec("uneven", NoArgs, "read", description="D.", en=("x", "x", "X"), ru=("x", "x"))


def test_the_description_is_put_on_one_line() -> None:
    spec = Family("t").spec(
        "look", NoArgs, "read",
        description="""Looks at things.
        Returns what it saw.""",
        en=("look", "Look"),
        ru=("смотреть", "Смотри"),
    )  # fmt: skip
    assert spec.description == "Looks at things. Returns what it saw."


def test_an_implementation_is_its_specs_async_function_typed_by_its_args_model() -> None:
    specs = Family("t")
    spec = _spec(specs)
    family = Implementations(specs)
    assert family.missing() == ["look"]

    async def look(args: EnvArgs, deps: ToolDeps) -> str:
        return "ok"

    assert family.implements("look")(look) is look  # by name, or by the spec itself
    tool = family.tools["look"]
    # one object: the spec (what it is) with its function, hooks, view and inverse
    assert tool.spec is spec and tool.fn is look and family.missing() == []
    assert (tool.preflight, tool.view, tool.inverse) == (None, None, None)
    with pytest.raises(ValueError, match="implemented twice in family 't'"):
        family.implements(spec)(look)


def test_an_implementation_that_does_not_match_its_spec_is_refused() -> None:
    specs = Family("t")
    _spec(specs)
    other = _spec(Family("u"))
    family = Implementations(specs)

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


@pytest.mark.parametrize(
    ("options", "roles", "pages", "everywhere"),
    [
        # a read with no roles is open to every built-in role, on no page context
        ({}, EVERYONE, frozenset(), False),
        # a write with no roles is admins' until it says otherwise (closed by default)
        ({"risk": "write"}, ADMINS, frozenset(), False),
        # a write open to everyone says so
        ({"risk": "write", "roles": EVERYONE}, EVERYONE, frozenset(), False),
        # pages are the page contexts it fits
        ({"pages": ("dashboard", "dataset")}, EVERYONE, frozenset({"dashboard", "dataset"}), False),
        # every page: offered whatever the page, a row of no page's affinity
        ({"pages": EVERY_PAGE}, EVERYONE, frozenset(), True),
    ],
)
def test_who_may_run_a_tool_and_where_are_its_specs_own(
    options: dict[str, Any], roles: frozenset[str], pages: frozenset[str], everywhere: bool
) -> None:
    spec = _spec(Family("t"), **options)
    assert (spec.roles, spec.affinity, spec.always_included) == (roles, pages, everywhere)


@pytest.mark.parametrize("pages", [("chart",), "dashboard"])
def test_a_page_context_that_does_not_exist_is_refused(pages: Any) -> None:
    with pytest.raises(ValueError, match="pages must be page contexts"):
        _spec(Family("t"), pages=pages)


def test_what_a_tool_serves_finds_and_signs_in_to_is_declared_on_its_spec() -> None:
    spec = _spec(Family("t"), serves="task_status", finds="dashboard", signs_in=False)
    assert (spec.serves, spec.finds, spec.signs_in) == ("task_status", "dashboard", False)
    plain = _spec(Family("u"))
    assert (plain.serves, plain.finds, plain.signs_in) == (None, None, True)


async def _nothing(change: Any, deps: Any) -> Any:
    return []


def test_an_inverse_goes_with_an_undoable_spec_and_only_with_it() -> None:
    undoable = Family("t")
    _spec(undoable, risk="write", undo="undoable")
    final = Family("u")
    _spec(final, risk="write")
    inverse = Inverse("k", drift=_nothing, run=_nothing)
    with pytest.raises(ValueError, match="an inverse goes with undo='undoable'"):
        Implementations(undoable).implements("look")
    with pytest.raises(ValueError, match="an inverse goes with undo='undoable'"):
        Implementations(final).implements("look", inverse=inverse)
    Implementations(undoable).implements("look", inverse=inverse)  # declared together: fine


def test_a_card_line_may_take_computed_values() -> None:
    def what(args: Any, lang: str) -> dict[str, str]:
        return {"what": "всё" if lang == "ru" else "all"}

    spec = _spec(
        Family("t"),
        en=("look", "Look", "Look at {what} in {env}"),
        ru=("смотреть", "Смотри", "Посмотреть {what} в {env}"),
        card_values=what,
    )
    assert spec.describe({}, "dev", "en") == "Look at all in dev"
    assert spec.describe({}, "dev", "ru") == "Посмотреть всё в dev"
