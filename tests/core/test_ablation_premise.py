"""A premise run that fails with no failing test says why: not "3 passed" as its reason."""

from __future__ import annotations

import pytest

from tests.plugin.test_treeguard import make_repo
from truegreen.core.ablation import PREMISE_FAILED, Run, premise, why_run_failed

# A shell appends to a tracked file: the write guard sees only Python's writes, so the tests
# pass and only the tree guard, comparing git status before and after the run, fails it: what
# a file edited in the checkout while `truegreen ablate` runs looks like to its premise run.
EDITS_BESIDE = """
import subprocess


def test_passes():
    subprocess.run(["sh", "-c", "echo edited >> notes.txt"], check=True)
"""


def test_passing_tests_in_a_failed_run_are_not_called_failing() -> None:
    """Ablation: replace `run.passed and not run.failed` with `False` in
    `src/truegreen/core/ablation.py`.
    """
    verdict = premise(Run(status=1, passed=3, tail="the working tree changed while the run ran"))
    assert verdict is not None  # premise: a run that failed is no premise
    assert verdict.verdict == PREMISE_FAILED
    assert verdict.detail == (
        "the tests pass unablated, but the run fails (exit 1): "
        "the working tree changed while the run ran"
    )
    failing = premise(Run(status=1, failed=(("t.py::test_a", "assert 1 == 2"),), passed=2))
    assert failing is not None
    assert failing.detail == "the tests do not pass unablated (exit 1): t.py::test_a: assert 1 == 2"


def test_the_tree_guards_changes_are_the_reason_of_a_run_that_failed_for_them(
    pytester: pytest.Pytester,
) -> None:
    """The tree guard's own summary, from a real run, read back as the reason.

    Ablation: replace `line.startswith(TREE_CHANGED)` with `False` in
    `src/truegreen/core/ablation.py`.
    """
    make_repo(pytester, test_edits=EDITS_BESIDE, notes="")
    pytester.path.joinpath("notes.py").rename(pytester.path / "notes.txt")
    pytester.run("git", "add", "-A")
    pytester.run("git", "commit", "-q", "-m", "notes")
    result = pytester.runpytest_subprocess("-q")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # premise: the tests passed, the run not
    result.assert_outcomes(passed=1)
    output = result.stdout.str()
    why = why_run_failed(output, "1 passed")
    assert why == (
        "the working tree changed while the run ran (modified: notes.txt): was the checkout "
        "edited during it? Run again on a tree left alone"
    )
    assert why_run_failed("1 failed, 2 passed", "1 failed, 2 passed") == "1 failed, 2 passed"
