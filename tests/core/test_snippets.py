"""Matching snippets by their syntax tree, and cutting them out."""

from __future__ import annotations

import pytest

from truegreen.core.ablation import Unapplied, Verdict
from truegreen.core.snippets import (
    SnippetError,
    choose,
    delete,
    delete_lines,
    find_expressions,
    find_statements,
    splice,
)

MODULE = """\
def parse(raw):
    if raw is None:
        return None  # nothing to parse
    x = 1; y = 2
    return raw.strip()


def other(raw):
    if raw is None: return None
    while True:
        break
"""


def test_one_line_form_matches_the_two_line_form() -> None:
    spans = find_statements(MODULE, "if raw is None:\n    return None")
    assert [s.line for s in spans] == [2, 9]
    with pytest.raises(
        Unapplied, match=r"^ambiguous: the snippet matches 2 places \(lines 2, 9\)$"
    ):
        choose(spans, None)
    assert choose(spans, 2) == spans[1]


def test_no_match_is_stale() -> None:
    with pytest.raises(Unapplied) as caught:
        choose(find_statements(MODULE, "return 42"), None)
    assert caught.value.verdict == Verdict("stale", "the snippet matches nothing")


def test_deleting_the_only_statement_of_a_block_leaves_pass() -> None:
    span = find_statements(MODULE, "return None")[0]
    assert delete(MODULE, span).splitlines()[1:3] == ["    if raw is None:", "        pass"]
    assert find_statements(MODULE, "break")[0].whole_block


def test_a_statement_sharing_its_line_becomes_pass() -> None:
    span = find_statements(MODULE, "y = 2")[0]
    assert delete(MODULE, span).splitlines()[3] == "    x = 1; pass"


def test_replace_an_expression() -> None:
    span = find_expressions(MODULE, "raw.strip( )")[0]
    assert splice(MODULE, span, "raw").splitlines()[4] == "    return raw"


def test_delete_lines_keeps_the_module_valid() -> None:
    assert delete_lines(MODULE, 10, 11).splitlines()[-1] == "    if raw is None: return None"
    with pytest.raises(SnippetError, match=r"--lines: expected A-B within 1-11, found 3-40"):
        delete_lines(MODULE, 3, 40)


def test_a_snippet_that_is_not_python_says_so() -> None:
    with pytest.raises(SnippetError, match=r"--delete: expected Python, found 'if x'"):
        find_statements(MODULE, "if x")
