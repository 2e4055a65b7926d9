"""Ambient reads: a test that reads a variable the machine set, and nothing sealed, is a lead."""

from __future__ import annotations

import pytest

CANARY = "tg-canary-ambient-42"


def test_reads_of_unsealed_ambient_variables_are_named_never_valued(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ablation: delete `plugin.pending = key` in
    `src/truegreen/plugin/ambient.py`: the section is empty. Restored."""
    monkeypatch.setenv("MYAPP_MODE", CANARY)
    monkeypatch.setenv("MYAPP_KEPT", CANARY)
    monkeypatch.setenv("GH_TOKEN", CANARY)
    pytester.makepyprojecttoml('[tool.truegreen]\nkeep-env = ["MYAPP_KEPT"]\n')
    pytester.makepyfile(
        """
        import os

        def test_reads():
            os.environ.get("MYAPP_MODE")
            os.getenv("MYAPP_KEPT")
            os.getenv("GH_TOKEN")
            os.environ.get("PATH")
            os.environ.get("NOT_SET_ANYWHERE")

        def test_reads_nothing():
            pass
        """
    )
    result = pytester.runpytest_subprocess("--truegreen-tree-guard=off")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "*- truegreen ambient reads -*",
            "tests read these variables, set on this machine and not sealed (names only); "
            "declare them in clear-env, or set them inside the test:",
            "  MYAPP_MODE: test_reads_of_unsealed*.py::test_reads",
            "*- truegreen -*",
        ]
    )
    out = result.stdout.str()
    assert "MYAPP_KEPT:" not in out
    assert "GH_TOKEN:" not in out
    assert CANARY not in out


def test_copying_the_whole_environment_reads_no_variable(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """click's CliRunner and pager copy os.environ (dict(), .copy(), ==): that names every
    variable of the machine, and depends on none of them.

    Ablation: replace `copying and copying[0] == key` with `False` in
    `src/truegreen/plugin/ambient.py`."""
    monkeypatch.setenv("MYAPP_COPIED", CANARY)
    monkeypatch.setenv("MYAPP_PICKED", CANARY)
    monkeypatch.setenv("MYAPP_MODE", CANARY)
    pytester.makepyfile(
        """
        import os

        def test_copies():
            snapshot = dict(os.environ)
            assert os.environ.copy() == snapshot
            assert os.environ == snapshot
            assert dict(os.environ.items()) == snapshot
            os.environ.get("MYAPP_MODE")

        def test_picks_one_by_iterating():
            for name in os.environ:
                if name == "MYAPP_PICKED":
                    os.environ[name]
        """
    )
    result = pytester.runpytest_subprocess("--truegreen-tree-guard=off")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["  MYAPP_MODE: *::test_copies"])
    # premise: a name picked out of an iteration is still a read
    result.stdout.fnmatch_lines(["  MYAPP_PICKED: *::test_picks_one_by_iterating"])
    out = result.stdout.str()
    assert "MYAPP_COPIED:" not in out


def test_a_variable_saved_just_before_the_test_sets_it_is_no_read(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """monkeypatch and click's CliRunner read the old value just before they set or delete
    a variable, to restore it later: the test establishes it, it does not depend on it. A
    one-byte value set over the same value counts too (CPython shares one object for each:
    click's CliRunner setting ``PYTHONUNBUFFERED=1`` on a machine that has it was a lead).

    Ablation: replace `environ is _ENVIRON and self.pending == key` with `False` in
    `src/truegreen/plugin/ambient.py`: every one of them is named. Restored."""
    for name in ("MYAPP_SET", "MYAPP_DELETED", "MYAPP_RESTORED", "MYAPP_MODE", "MYAPP_POPPED"):
        monkeypatch.setenv(name, CANARY)
    monkeypatch.setenv("MYAPP_ONE", "1")
    monkeypatch.setenv("MYAPP_EMPTY", "")
    pytester.makepyfile(
        """
        import os

        def test_establishes_its_variables(monkeypatch):
            monkeypatch.setenv("MYAPP_SET", "on")
            monkeypatch.delenv("MYAPP_DELETED")
            saved = os.environ.get("MYAPP_RESTORED")
            os.environ["MYAPP_RESTORED"] = "on"
            os.environ["MYAPP_RESTORED"] = saved
            os.environ.pop("MYAPP_POPPED")

        def test_sets_the_value_the_machine_has(monkeypatch):
            monkeypatch.setenv("MYAPP_ONE", "1")
            saved = os.environ.get("MYAPP_EMPTY")
            os.environ["MYAPP_EMPTY"] = ""

        def test_reads_then_sets_another():
            os.environ.get("MYAPP_MODE")
            os.environ["MYAPP_OTHER"] = "on"
            del os.environ["MYAPP_OTHER"]
        """
    )
    result = pytester.runpytest_subprocess("--truegreen-tree-guard=off")
    result.assert_outcomes(passed=3)
    # premise: a read followed by a write of another variable is still a read
    result.stdout.fnmatch_lines(["  MYAPP_MODE: *::test_reads_then_sets_another"])
    out = result.stdout.str()
    for name in ("MYAPP_SET", "MYAPP_DELETED", "MYAPP_RESTORED", "MYAPP_POPPED"):
        assert f"{name}:" not in out
    assert "MYAPP_ONE:" not in out
    assert "MYAPP_EMPTY:" not in out


def test_a_variable_the_suite_sets_itself_is_not_the_machines(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """setuptools-scm's conftest sets SOURCE_DATE_EPOCH in pytest_configure for every test.

    Ablation: replace `config.stash.get(AMBIENT_KEY, frozenset(os.environ))` with
    `frozenset(os.environ)` in `src/truegreen/plugin/ambient.py`."""
    monkeypatch.setenv("MYAPP_MODE", CANARY)
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    monkeypatch.delenv("MYAPP_IMPORTED", raising=False)
    pytester.makeconftest(
        """
        import os

        os.environ["MYAPP_IMPORTED"] = "1"

        def pytest_configure():
            os.environ["SOURCE_DATE_EPOCH"] = "1234567890"
        """
    )
    pytester.makepyfile(
        """
        import os

        def test_reads():
            assert os.environ["SOURCE_DATE_EPOCH"] == "1234567890"
            assert os.environ["MYAPP_IMPORTED"] == "1"
            os.environ.get("MYAPP_MODE")
        """
    )
    result = pytester.runpytest_subprocess("--truegreen-tree-guard=off")
    result.assert_outcomes(passed=1)
    # Premise: the section is there, for the variable the machine did set.
    result.stdout.fnmatch_lines(["*- truegreen ambient reads -*", "  MYAPP_MODE: *::test_reads"])
    out = result.stdout.str()
    assert "SOURCE_DATE_EPOCH:" not in out
    assert "MYAPP_IMPORTED:" not in out
