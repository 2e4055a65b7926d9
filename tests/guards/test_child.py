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


def test_a_guarded_child_loads_only_what_guarding_needs() -> None:
    """A guarded child imports the guards, not what only a violation, a spawn or the session
    needs: the records and their writer, the event names, the errors raised on a refusal,
    the network programs' parsers, the shim's own bookkeeping for grandchildren, the process
    table and the running test's file. Each module is a file to find, read and run in every
    Python child a test starts (3 ms of the 6 the guards cost there).

    Ablation: replace `TYPE_CHECKING` with `True` in `src/truegreen/guards/runtime.py` (the
    records are imported with the module again).
    """
    import subprocess
    import sys

    later = (
        "truegreen.guards.violations", "truegreen.core.events", "truegreen.guards.errors",
        "truegreen.guards.netprograms", "truegreen.guards.children", "truegreen.guards.procfs",
        "truegreen.guards.current", "truegreen.guards.sites",
    )  # fmt: skip
    code = (
        "import sys; print('truegreen.guards.child' in sys.modules, "
        f"sorted(m for m in {later!r} if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded, _, early = done.stdout.strip().partition(" ")
    assert loaded == "True"  # the shim loaded the guards into the child
    assert early == "[]"
