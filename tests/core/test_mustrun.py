"""The must-run matcher the plugin and shards verify share."""

from __future__ import annotations

import pytest

from truegreen.core.mustrun import matches


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("tests/test_gate.py::test_x[1]", True),  # exactly
        ("tests/test_gate.py::test_x", True),  # every parameter of a function
        ("tests/test_gate.py", True),  # a file
        ("*::test_x*", True),  # a glob
        ("tests/test_gate.py::test", False),  # a prefix of a name is not a name
        ("tests/test_gate", False),
    ],
)
def test_a_pattern_names_a_test_exactly_by_prefix_or_by_glob(pattern: str, expected: bool) -> None:
    assert matches("tests/test_gate.py::test_x[1]", pattern) is expected
