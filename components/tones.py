"""Tailwind tones of the page's state badges and banners: a table names a colour a state,
the formula of a tone lives here once."""

from __future__ import annotations


def soft(colour: str) -> str:
    """A pale tone: ``bg-<colour>-100`` behind ``text-<colour>-900`` (dark on light)."""
    return f"bg-{colour}-100 text-{colour}-900"
