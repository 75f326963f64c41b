"""The house's bars that no import contract states, held by the suite so that a change
which breaks one learns it from CI, not from a later count:

* no product module (``app/``, ``components/``) is over 300 lines: a module a reader takes
  in at once (a longer one is split by what its parts do, as DEVELOPERS.md shows);
* no product text cites an issue number: a docstring or comment says the reason itself,
  which outlives the tracker.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = sorted(p for d in ("app", "components") for p in (ROOT / d).rglob("*.py"))
MAX_LINES = 300
ISSUE_NUMBER = re.compile(r"\bissues? #?\d+", re.IGNORECASE)


def test_the_product_is_read_from_its_own_tree() -> None:
    assert len(PRODUCT) > 100  # the scan below reads the product, not an empty glob


def test_no_product_module_is_over_300_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in PRODUCT
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"split these by what their parts do: {long}"


def test_no_product_text_cites_an_issue_number() -> None:
    cites = [
        f"{p.relative_to(ROOT)}:{i}: {line.strip()}"
        for p in PRODUCT
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if ISSUE_NUMBER.search(line)
    ]
    assert not cites, "say the reason instead:\n" + "\n".join(cites)
