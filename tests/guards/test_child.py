"""A child process learns which test started it from pytest's own PYTEST_CURRENT_TEST."""

from __future__ import annotations

import os

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


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
def test_a_forked_child_records_its_exec_with_what_its_parent_readied() -> None:
    """A library that forks and then execs in Python (``sh``, ``pexpect``) runs the exec's
    audit event in the forked copy: what the record needs (the records and their writer, the
    running test, the user's line) is imported in the parent as it forks, once, not again in
    every copy (1-2 ms a fork). The guarded child below forks; its copy raises the exec's
    event and reports the spawns it recorded and the modules it had to import.

    Ablation: delete `guard.before_fork()` in `src/truegreen/guards/spawns.py` (the copy
    imports the records and their writer itself).
    """
    import ast
    import subprocess
    import sys

    code = """if True:
        import os, sys
        from truegreen.guards import active
        guard = active.current()
        reader, writer = os.pipe()
        pid = os.fork()
        if pid == 0:
            before = set(sys.modules)
            sys.audit("os.exec", "/bin/true", ["/bin/true"], None)
            new = sorted(set(sys.modules) - before)
            os.write(writer, repr((len(guard.spawns), new)).encode())
            os._exit(0)
        os.close(writer)
        print(os.read(reader, 65536).decode())
        os.waitpid(pid, 0)
    """
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    spawns, imported = ast.literal_eval(done.stdout)
    assert spawns == 1  # the premise: the copy recorded the program it was about to exec
    assert imported == [], imported
