"""Reading the event stream back: outcomes counted as pytest's closing line counts them."""

from __future__ import annotations

import pytest

from truegreen.core.metrics import outcome_counts, read_dir

SUITE = """
import pytest


@pytest.fixture
def broken():
    raise RuntimeError("setup")


@pytest.fixture
def breaks_after():
    yield
    raise RuntimeError("teardown")


def test_passes():
    pass


def test_fails():
    assert False


def test_errors_in_setup(broken):
    pass


def test_fails_then_errors_in_teardown(breaks_after):
    assert False


def test_passes_then_errors_in_teardown(breaks_after):
    pass


@pytest.mark.skip(reason="later")
def test_skipped():
    pass


@pytest.mark.xfail(reason="known")
def test_expected_to_fail():
    assert False
"""


def test_it_counts_the_outcomes_pytest_prints(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_suite=SUITE)
    metrics = pytester.path / "metrics"
    result = pytester.runpytest_subprocess(f"--truegreen-metrics={metrics}", "-p", "no:randomly")
    expected = result.parseoutcomes()
    actual = outcome_counts(read_dir(metrics))
    assert actual == expected
