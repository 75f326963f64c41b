"""Every regex of the product runs in linear time on its worst input.

A chat message is hostile and up to 20,000 characters long: a pattern that backtracks
super-linearly on it (``\\s*,?\\s+please$`` on a run of blanks took hours) freezes the
server. Each pattern is fed the worst inputs built from its own syntax tree
(:mod:`tests.security.regex_attacks`: long runs of what its repeats accept, a keyword
repeated, a near match that fails at the end) at 2,000 and 20,000 characters, and must
take at most 30× as long for 10× the text (linear: 10×; quadratic: 100×).

The patterns: every compiled pattern among the module globals of ``app`` and
``components`` (and in the tuples, dicts and dataclasses they hold), the ones the
planner builds at run time for a set of environments and for the catalog's tools, and
the tail patterns, read as :func:`app.planner.tails.tail_search` reads them. A static
check keeps it that way: no module calls ``re.search``/``re.sub``/… with a pattern of
its own, and ``re.compile`` inside a function only in the factories listed here.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import pkgutil
import re
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import app
import components
from app.planner.known import Known
from app.planner.sqltext import trailing_patterns
from app.planner.tails import PATTERNS as TAIL_PATTERNS
from app.planner.tails import tail_search
from app.planner.text import EnvResolver
from app.tools.catalog import TOOL_CATALOG
from tests.security.regex_attacks import Attack, attacks, finditer_all, superlinear, worst

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("app", "components")
ENVIRONMENTS = {"dev": "dev", "staging": "staging", "prod": "prod", "prod-eu.2": "prod"}
# functions that compile patterns at run time, each probed below through what it builds
FACTORIES = {
    "app/planner/knowledge.py": {"_pattern"},  # the intent table's rows (intents.INTENTS)
    "app/planner/known.py": {"_heard_by"},  # a catalog's phrases (Known(TOOL_CATALOG))
    "app/planner/text.py": {"__init__"},  # EnvResolver: the configured environments
    "app/planner/sqltext.py": {"trailing_patterns"},  # with the environments' pattern
    "app/planner/request.py": {"after_pattern"},  # module constants (AFTER_*)
    "app/planner/keywords.py": {"before_pattern"},  # module constants (BEFORE_*)
    "app/planner/tails.py": {"tail_pattern"},  # listed in tails.PATTERNS
}
CALLS = {"compile", "match", "search", "sub", "subn", "findall", "finditer", "split", "fullmatch"}


def _patterns_in(value: Any, depth: int = 3) -> Iterator[re.Pattern[str]]:
    if isinstance(value, re.Pattern):
        yield value
    elif depth and isinstance(value, dict):
        for item in value.values():
            yield from _patterns_in(item, depth - 1)
    elif depth and isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _patterns_in(item, depth - 1)
    elif depth and dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from _patterns_in(getattr(value, f.name), depth - 1)


def _module_patterns() -> Iterator[tuple[str, re.Pattern[str]]]:
    for package in (app, components):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            module = importlib.import_module(info.name)
            for name, value in sorted(vars(module).items()):
                for i, pattern in enumerate(_patterns_in(value)):
                    yield f"{info.name}.{name}" + (f"[{i}]" if i else ""), pattern


def _built_patterns() -> Iterator[tuple[str, re.Pattern[str]]]:
    envs = EnvResolver(ENVIRONMENTS)
    yield "EnvResolver.pattern", envs.pattern
    for i, (pattern, _) in enumerate(envs._alternatives):
        yield f"EnvResolver.alternative[{i}]", pattern
    for i, pattern in enumerate(trailing_patterns(envs.pattern.pattern)):
        yield f"trailing_patterns(envs)[{i}]", pattern
    for tool, pattern in Known(TOOL_CATALOG)._heard.items():
        if pattern is not None:
            yield f"Known.heard[{tool}]", pattern


@cache
def product_patterns() -> dict[str, tuple[re.Pattern[str], Callable[[str], object]]]:
    """name -> (pattern, the search the product runs it with), each pattern once."""
    tails = {id(p) for p in TAIL_PATTERNS}
    found: dict[str, tuple[re.Pattern[str], Callable[[str], object]]] = {}
    seen: set[tuple[str, int]] = set()
    for name, pattern in [*_module_patterns(), *_built_patterns()]:
        if (pattern.pattern, pattern.flags) in seen:
            continue
        seen.add((pattern.pattern, pattern.flags))
        if id(pattern) in tails:
            found[name] = (pattern, lambda text, p=pattern: tail_search(p, text))
        else:
            found[name] = (pattern, finditer_all(pattern))
    return found


def test_the_product_patterns_are_all_found():
    names = product_patterns()
    assert len(names) > 100
    expected = (
        "app.planner.sqltext._FENCE",  # module constants
        "app.planner.intents.INTENTS",  # inside a tuple of dataclasses
        "app.planner.tails.PATTERNS",  # the tail patterns (the families' own), where listed
        "EnvResolver.pattern",  # built at run time
        "Known.heard[search_dashboards]",
    )
    assert all(name in names for name in expected)


@pytest.mark.parametrize("name", sorted(product_patterns()))
def test_each_pattern_runs_in_linear_time_on_its_worst_input(name):
    pattern, search = product_patterns()[name]
    verdict = worst(search, attacks(pattern))
    assert verdict is None, f"{name} /{pattern.pattern}/ is super-linear: {verdict}"


@pytest.mark.parametrize(
    "regex",
    [
        r"\s*,?\s+(?:please|pls)$",  # the planner's old "please": cubic on a run of blanks
        r"(?:#|dashboard)\s*(?:id)?\s*[:=]?\s*(\d+(?:\s*(?:,|\s)\s*\d+)*)",  # old id list
        r"[\w.-]+$",  # a search restarted inside one long word: quadratic
        r"<title>(.*?)</title>",  # an unclosed tag, each later one scanning to the end
        r"(a+)+b",  # exponential
        r"удал\w*.{0,20}бэкап",  # a stem repeated inside one word
    ],
)
def test_the_check_catches_a_super_linear_pattern(regex):
    pattern = re.compile(regex, re.IGNORECASE)
    assert worst(finditer_all(pattern), attacks(pattern)) is not None, f"/{regex}/ passed"


def test_a_linear_pattern_passes_whatever_its_attack():
    pattern = re.compile(r"(?<!\s)\s*+(?:,\s++|(?<=\s))(?:please|pls)$", re.IGNORECASE)
    assert all(superlinear(finditer_all(pattern), a) is None for a in attacks(pattern))
    assert worst(finditer_all(pattern), attacks(pattern)) is None
    assert Attack("select 1", " ", "x").text(20_000).startswith("select 1   ")


def _calls(path: Path) -> Iterator[tuple[str, str, int]]:
    """(function the call is in, ``re`` function, line) for every ``re.<fn>(…)``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))

    def visit(node: ast.AST, scope: str) -> Iterator[tuple[str, str, int]]:
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                inner = getattr(child, "name", "<lambda>")
            if (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Attribute)
                and isinstance(child.func.value, ast.Name)
                and child.func.value.id == "re"
                and child.func.attr in CALLS
            ):
                yield scope, child.func.attr, child.lineno
            yield from visit(child, inner)

    yield from visit(tree, "")


def test_every_pattern_is_a_module_constant_or_built_by_a_listed_factory():
    wrong = []
    for source in SOURCES:
        for path in sorted((ROOT / source).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            text = path.read_text(encoding="utf-8")
            if re.search(r"^\s*(?:from re import|import regex\b|from regex\b)", text, re.M):
                wrong.append(f"{rel}: imports from re or regex directly")
            for scope, call, line in _calls(path):
                if call != "compile":
                    wrong.append(f"{rel}:{line}: re.{call}() with a pattern of its own")
                elif scope and scope not in FACTORIES.get(rel, ()):
                    wrong.append(f"{rel}:{line}: re.compile() inside {scope}()")
    assert not wrong, "a pattern the linear-time test cannot see:\n" + "\n".join(wrong)
