"""Templated SQL is dangerous: Superset, with template processing on, renders Jinja
before it runs the text, so a text holding ``{{``, ``{%`` or ``{#`` is rated by what it
may become, not by what it reads as (the review's ``SELECT 1 -- {{ '\\n' }}; DELETE FROM
orders`` was a read to the classifier and a DELETE to Superset)."""

from __future__ import annotations

import pytest
from jinja2 import DebugUndefined
from jinja2.sandbox import SandboxedEnvironment

from app.i18n import t
from app.policy import DEFAULT_POLICY, build_confirmation_contract_v2, classify_sql, sql_risk
from app.policy.sql_templates import TEMPLATE_MARKERS, is_templated

PROBE = "SELECT 1 -- {{ '\\n' }}; DELETE FROM orders"  # the review's probe, as typed


def superset_renders(sql: str) -> str:
    """What Superset's JinjaTemplateProcessor makes of ``sql`` with an empty context (its
    environment: sandboxed, DebugUndefined, Jinja's default delimiters)."""
    return SandboxedEnvironment(undefined=DebugUndefined).from_string(sql).render()


def test_the_probe_is_a_read_as_written_and_a_delete_as_superset_renders_it() -> None:
    rendered = superset_renders(PROBE)
    assert rendered == "SELECT 1 -- \n; DELETE FROM orders"
    assert sql_risk(rendered) == "delete"  # what Superset runs
    assert sql_risk(PROBE.replace("{{", "").replace("}}", "")) == "read"  # the text, unrendered
    verdict = classify_sql(PROBE)
    assert verdict.risk == "delete" and verdict.reason.startswith("templated SQL"), verdict


@pytest.mark.parametrize(
    "sql",
    [
        PROBE,  # the review's probe: a newline rendered into a line comment
        "SELECT 1 -- {% raw %}\n{% endraw %}; DELETE FROM orders",  # a statement block
        "SELECT '{{ 1 }}'",  # inside a string literal: Jinja reads the text before SQL does
        "SELECT 1 /* {{ x }} */",  # inside a block comment
        "SELECT 1 -- {# a Jinja comment #}",  # a Jinja comment in a SQL comment
        "{# hidden #} SELECT 1",  # a Jinja comment alone
        "SELECT * FROM t WHERE d = '{{ ds }}'",  # an ordinary templated filter: still rendered
        "SELECT {{ url_param('x') }}",  # a Superset macro: its value is the caller's
        "SELECT * FROM {{ dataset(42) }} AS d",  # another dataset's SQL pulled in
        "{%- set t = 'orders' -%} SELECT * FROM {{ t }}",  # whitespace-control delimiters
        "{%+ if true %}DELETE FROM orders{% endif %}",  # the + form
        "SELECT '{{1,2},{3,4}}'::int[]",  # a 2-D array literal is Jinja syntax to Superset too
        "EXPLAIN SELECT '{{ x }}'",  # an EXPLAIN does not hide it
        "EXPLAIN ANALYZE SELECT 1 -- {{ '\\n' }}; DELETE FROM orders",  # nor EXPLAIN ANALYZE
        "SELECT 1;\n{% for i in range(3) %}DELETE FROM t{{ i }};{% endfor %}",  # a loop
    ],
)
def test_templated_text_is_dangerous_wherever_the_marker_stands(sql: str) -> None:
    assert is_templated(sql)
    verdict = classify_sql(sql)
    assert verdict.risk == "delete" and verdict.key == "sql_templated", verdict


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT '{}'",  # an empty JSON object: no Jinja delimiter
        'SELECT \'{"a": {"b": 1}}\'::json',  # nested JSON opens with {", not {{
        "SELECT '{ {x} }'",  # a space between the braces is no delimiter
        "SELECT '%}' || '}}' || '#}'",  # closing delimiters alone render as text
        "SELECT 1 -- { % not a tag % }",  # spaced out
    ],
)
def test_braces_that_are_no_jinja_delimiter_leave_the_reading_alone(sql: str) -> None:
    assert not is_templated(sql)
    assert superset_renders(sql) == sql  # Superset would run the text as written
    assert sql_risk(sql) == "read"


def test_the_markers_are_jinjas_default_opening_delimiters() -> None:
    env = SandboxedEnvironment(undefined=DebugUndefined)  # Superset's, as in jinja_context.py
    assert TEMPLATE_MARKERS == (
        env.variable_start_string,
        env.block_start_string,
        env.comment_start_string,
    )
    assert env.line_statement_prefix is None and env.line_comment_prefix is None


@pytest.mark.parametrize(("lang", "start"), [("en", "templated SQL"), ("ru", "шаблонный SQL")])
def test_the_card_says_templated_sql_in_its_language(lang: str, start: str) -> None:
    meta = build_confirmation_contract_v2(
        "superset_execute_sql", {"sql": PROBE}, "analyst", "prod",
        policy=DEFAULT_POLICY, lang=lang,
    )  # fmt: skip
    assert meta["dangerous"] is True and meta["card_state"] == "dangerous"
    assert meta["requires_confirmation"] is True and meta["countdown_s"] > 0
    assert meta["risk_reason"] == t("sql_templated", lang) and meta["risk_reason"].startswith(start)
    assert meta["details"] is None  # the reason is the card's own line, not a detail
