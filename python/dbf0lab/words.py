"""Counts in words, the one place the Python side makes a plural: "1 trial", "2 trials"."""

from __future__ import annotations


def count(n: int, singular: str, plural: str | None = None) -> str:
    """``n`` and the noun that goes with it: count(1, "trial") is "1 trial", count(1200, "key")
    is "1,200 keys"; irregular nouns give their plural."""
    return f"{n:,} {singular if n == 1 else plural or singular + 's'}"
