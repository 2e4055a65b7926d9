"""The sql-numeric-separator rule's cheap test of a file's text."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from truegreen.audit.rules.sql_numeric_separator import SqlNumericSeparator, _digits_joined

# digits of several scripts (Arabic-Indic, Devanagari), superscripts that are not \d, and the
# underscores and letters between them
TEXT = st.text(alphabet="0123456789_a. \n\u0661\u0967\u00b2")


@given(TEXT)
def test_digits_joined_agrees_with_the_regex(text: str) -> None:
    assert _digits_joined(text) == (re.search(r"\d_\d", text) is not None)


def test_a_file_with_separated_digits_and_sql_is_wanted() -> None:
    source = 'QUERY = "SELECT * FROM t WHERE n > 90' + '_000"\n'  # in two: our audit reads this
    assert SqlNumericSeparator.wants(source) is True


def test_a_file_whose_underscores_join_no_digits_is_not_wanted() -> None:
    """Ablation: replace `match.start() and source[match.start() - 1].isdecimal()` with
    `True` in `src/truegreen/audit/rules/sql_numeric_separator.py`."""
    source = 'test_1 = "SELECT * FROM t WHERE n > x_9"\n'
    assert "SELECT" in source  # the premise: SQL, and underscores before digits
    assert re.findall(r"_\d", source) == ["_1", "_9"]
    assert SqlNumericSeparator.wants(source) is False
