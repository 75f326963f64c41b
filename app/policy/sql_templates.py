"""Templated SQL: a text Superset renders with Jinja before it runs it.

With the ``ENABLE_TEMPLATE_PROCESSING`` feature flag on (common in production) Superset
renders every SQL text with Jinja (a sandboxed environment with Jinja's default
delimiters) before it parses, checks and runs it: in SQL Lab, and on every render of a
chart whose virtual dataset holds the text. What runs is the rendered text, not the one
a classifier reads: ``SELECT 1 -- {{ '\\n' }}; DELETE FROM orders`` is one SELECT as
written, and a SELECT and a DELETE once rendered.

Rendering it here exactly as Superset would is impossible: the result depends on
Superset's own context (``url_param``, ``current_username``, ``filter_values``, cache
keys, ``{{ dataset(42) }}`` pulling another dataset's SQL, an operator's
``JINJA_CONTEXT_ADDONS`` macros). So the choice is the safe one: a text holding any of
Jinja's opening delimiters (:data:`TEMPLATE_MARKERS`) is dangerous, wherever it stands.
Jinja reads the text before any SQL reader does, so a ``{{`` inside a string literal or
a comment renders as well; the delimiters' whitespace-control forms (``{%-``, ``{{+``)
begin with the same two characters.

Not covered: an operator's ``CUSTOM_TEMPLATE_PROCESSORS`` entry that uses markers of its
own (see ``docs/sql-risk.md``).
"""

from __future__ import annotations

from app.i18n import t

#: Jinja's default opening delimiters: an expression, a statement, a comment.
TEMPLATE_MARKERS: tuple[str, ...] = ("{{", "{%", "{#")

#: The catalog key of the card's reason (en + ru in ``app/strings.toml``).
TEMPLATED_KEY = "sql_templated"
TEMPLATED_REASON = t(TEMPLATED_KEY, "en")


def is_templated(sql: str) -> bool:
    """Whether Superset, with template processing on, would render ``sql`` with Jinja
    before running it (any opening delimiter anywhere in the text)."""
    return any(marker in sql for marker in TEMPLATE_MARKERS)
