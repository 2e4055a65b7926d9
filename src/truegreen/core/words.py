"""Counts in words: "1 test", "2 tests", "1 process", "3 processes"."""

from __future__ import annotations

from typing import Optional


def counted(n: int, noun: str, plural: Optional[str] = None) -> str:
    """``n`` and the noun, singular for exactly one; ``plural`` when adding "s" is wrong."""
    if n == 1:
        return f"1 {noun}"
    return f"{n} {plural or noun + 's'}"
