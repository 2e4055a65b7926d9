"""A child process learns which test started it from pytest's own PYTEST_CURRENT_TEST."""

from __future__ import annotations

import pytest

from truegreen.guards.child import running_test


@pytest.mark.parametrize(
    ("current", "expected"),
    [
        ("tests/test_app.py::test_save (call)", "tests/test_app.py::test_save"),
        ("tests/test_app.py::test_save (setup)", "tests/test_app.py::test_save"),
        ("t.py::test_p[a (b)] (teardown)", "t.py::test_p[a (b)]"),
        ("", None),
        ("not a phase", None),
    ],
)
def test_the_node_id_is_pytests_variable_without_its_phase(
    current: str, expected: str | None
) -> None:
    assert running_test(current) == expected
