"""The suppression comment grammar, and the statement lines a suppression may sit on."""

from __future__ import annotations

import ast

from hypothesis import given
from hypothesis import strategies as st

from truegreen.audit.suppressions import Suppression, parse, statement_ends

CODES = st.lists(st.from_regex(r"TG[0-9]{3}", fullmatch=True), min_size=1, max_size=3)
REASONS = st.text(st.characters(blacklist_characters="#\r\n", blacklist_categories=("Cs", "Cc")),
                  max_size=30)  # fmt: skip


@given(CODES, REASONS)
def test_codes_and_reason_come_back_as_written(codes: list[str], reason: str) -> None:
    source = f"x = 1  # truegreen: ignore[{', '.join(codes)}] {reason}  # noqa: E501\n"
    assert parse(source) == [Suppression(1, 8, tuple(codes), reason.strip())]


@given(st.text(max_size=200))
def test_any_text_parses_without_raising(source: str) -> None:
    found = parse(source + "\n# truegreen: ignore[TG402] why")
    assert all(isinstance(s, Suppression) for s in found)


def test_only_comments_count_not_strings() -> None:
    source = 'text = "# truegreen: ignore[TG402] no"  # truegreen: ignore[TG101] yes\n'
    assert parse(source) == [Suppression(1, 41, ("TG101",), "yes")]


def test_a_statement_over_several_lines_offers_its_first_and_last_lines() -> None:
    source = (
        "@decorator(\n    1,\n)\ndef f(\n    a,\n):\n    call(\n        a,\n    )\n    single()\n"
    )
    ends = statement_ends(ast.parse(source))
    assert ends == {
        1: (1, 6), 2: (1, 6), 3: (1, 6), 4: (1, 6), 5: (1, 6), 6: (1, 6),
        7: (7, 9), 8: (7, 9), 9: (7, 9),
    }  # fmt: skip
