"""--truegreen-order: exactly the listed tests, in the listed order, parametrized ids included."""

from __future__ import annotations

from pathlib import Path

import pytest

from truegreen.core.protocol import ids_text

SUITE = """
import pytest

RAN = []


def test_first():
    RAN.append("first")


@pytest.mark.parametrize("value", ["a::b c", "x[y]"])
def test_odd_ids(value):
    RAN.append(value)


def test_last():
    RAN.append("last")


def test_report():
    print("RAN=" + "|".join(RAN))
"""


def order_file(pytester: pytest.Pytester, ids: list[str]) -> Path:
    path = pytester.path / "order.json"
    path.write_text(ids_text(ids))
    return path


def test_the_listed_tests_run_in_the_listed_order(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_suite=SUITE)
    ids = [
        "test_suite.py::test_last",
        "test_suite.py::test_odd_ids[x[y]]",
        "test_suite.py::test_odd_ids[a::b c]",
        "test_suite.py::test_report",
    ]
    result = pytester.runpytest_subprocess(
        f"--truegreen-order={order_file(pytester, ids)}", "-s", "-p", "no:randomly"
    )
    result.assert_outcomes(passed=4)
    assert "RAN=last|x[y]|a::b c" in result.stdout.str()


def test_a_test_left_out_does_not_run_and_is_not_a_deselection_to_report(
    pytester: pytest.Pytester,
) -> None:
    """Ablation: delete `items[:] = [by_id[nodeid] for nodeid in self.ids]` in
    `src/truegreen/plugin/order.py`."""
    pytester.makepyfile(test_suite=SUITE)
    everything = pytester.runpytest_subprocess("-s", "-p", "no:randomly")
    everything.assert_outcomes(passed=5)  # premise: test_first runs when nothing is imposed
    ids = ["test_suite.py::test_last", "test_suite.py::test_report"]
    result = pytester.runpytest_subprocess(
        f"--truegreen-order={order_file(pytester, ids)}", "-s", "-p", "no:randomly"
    )
    result.assert_outcomes(passed=2)
    assert "RAN=last\n" in result.stdout.str()
    result.stdout.fnmatch_lines(["collected 5, ran 2 (2 passed), skipped 0, deselected 0*"])


def test_an_id_that_was_not_collected_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_suite=SUITE)
    ids = ["test_suite.py::test_last", "test_suite.py::test_gone"]
    result = pytester.runpytest_subprocess(f"--truegreen-order={order_file(pytester, ids)}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: truegreen: --truegreen-order expected collected node ids, found 1 that were "
            "not collected, first 'test_suite.py::test_gone'"
        ]
    )


def test_an_order_file_that_is_not_a_list_of_ids_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_suite=SUITE)
    path = pytester.path / "order.json"
    path.write_text('{"test_suite.py::test_last": 1}')
    result = pytester.runpytest_subprocess(f"--truegreen-order={path}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: truegreen: --truegreen-order: {path}: expected a JSON list of node ids, "
            """found '{"test_suite.py::test_last": 1}'"""
        ]
    )
    path.write_text("not json")
    result = pytester.runpytest_subprocess(f"--truegreen-order={path}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"ERROR: truegreen: --truegreen-order: {path}: expected JSON, found Expecting value*"]
    )
