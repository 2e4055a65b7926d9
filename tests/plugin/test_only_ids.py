"""--truegreen-only-ids and --truegreen-only-file: a rerun keeps to the listed tests or one file."""

from __future__ import annotations

import pytest

from truegreen.core.protocol import ids_text

SUITE = """
def test_a():
    pass


def test_b():
    assert False


def test_c():
    pass
"""


def test_only_the_listed_tests_run_and_the_rest_count_as_run_elsewhere(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_suite=SUITE)
    listing = pytester.path / "only.json"
    listing.write_text(ids_text(["test_suite.py::test_b", "test_suite.py::test_c"]))
    result = pytester.runpytest_subprocess(f"--truegreen-only-ids={listing}")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*deselected 0, in other shards 1*"])


def test_the_users_own_selection_still_applies(pytester: pytest.Pytester) -> None:
    """Ablation: replace `[i for i in items if i.nodeid in self.nodeids]` with `items` in
    `src/truegreen/plugin/isolate.py`."""
    pytester.makepyfile(test_suite=SUITE)
    listing = pytester.path / "only.json"
    listing.write_text(ids_text(["test_suite.py::test_a", "test_suite.py::test_b"]))
    assert pytester.runpytest_subprocess("-k", "not test_b").parseoutcomes()["passed"] == 2
    result = pytester.runpytest_subprocess(f"--truegreen-only-ids={listing}", "-k", "not test_b")
    result.assert_outcomes(passed=1, deselected=2)  # test_b by -k, test_c by the listing


def test_only_file_does_not_import_the_other_files_of_the_selection(
    pytester: pytest.Pytester,
) -> None:
    """Ablation: delete `return True` in `src/truegreen/plugin/isolate.py`."""
    pytester.makepyfile(
        test_a="import json\n\ndef test_a():\n    assert not hasattr(json, 'B_WAS_IMPORTED')\n",
        test_b="import json\n\njson.B_WAS_IMPORTED = True\n\ndef test_b():\n    pass\n",
    )
    pytester.mkpydir("sub").joinpath("test_c.py").write_text("raise ImportError('not me')\n")
    premise = pytester.runpytest_subprocess("-p", "no:randomly", "test_a.py", "test_b.py")
    premise.assert_outcomes(passed=1, failed=1)  # one process: b's import reaches a
    result = pytester.runpytest_subprocess("--truegreen-only-file=test_a.py")
    result.assert_outcomes(passed=1)
