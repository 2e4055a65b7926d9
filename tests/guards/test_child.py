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


def test_a_guarded_child_imports_neither_typing_nor_re() -> None:
    """The shim runs in every Python child a test starts (a build backend, a CLI under test):
    the guards it loads import no ``typing`` or ``re``, a third of a bare interpreter's start.
    This suite runs under truegreen, so the child below is a guarded one.

    Ablation: replace `False` with `True` in `src/truegreen/guards/procfs.py`.
    """
    import subprocess
    import sys

    code = (
        "import sys; print('truegreen.guards.child' in sys.modules, "
        "sorted(m for m in ('typing', 're', 'enum') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded, _, heavy = done.stdout.strip().partition(" ")
    assert loaded == "True"  # the shim loaded the guards into the child
    assert heavy == "[]"
