"""Counts in words."""

from __future__ import annotations

import pytest

from truegreen.core.words import counted


@pytest.mark.parametrize(
    ("n", "noun", "plural", "expected"),
    [
        (0, "test", None, "0 tests"),
        (1, "test", None, "1 test"),
        (2, "test", None, "2 tests"),
        (1, "process", "processes", "1 process"),
        (3, "process", "processes", "3 processes"),
    ],
)
def test_one_is_singular_and_every_other_count_plural(
    n: int, noun: str, plural: str | None, expected: str
) -> None:
    assert counted(n, noun, plural) == expected
