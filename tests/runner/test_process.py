"""pytest started by the command: its units collected, its outcomes read back, whole or in part."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from truegreen.core.errors import UsageError
from truegreen.core.outcomes import MISSING
from truegreen.runner.process import PytestProcess, last_line

SUITE = """
import pytest


def test_pass():
    pass


def test_fail():
    assert False


@pytest.mark.skip(reason="later")
def test_skip():
    pass


@pytest.fixture
def broken():
    raise RuntimeError("setup")


def test_error(broken):
    pass
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_suite.py").write_text(SUITE)
    (tmp_path / "tests" / "test_other.py").write_text("def test_other():\n    pass\n")
    return tmp_path


ARGS = ["-q", "-p", "no:cacheprovider"]


def pytest_in(cwd: Path, args: list[str]) -> PytestProcess:
    return PytestProcess(args, who="leaks", env=os.environ, cwd=cwd)


def test_a_run_gives_each_tests_outcome_and_the_exit_status(project: Path) -> None:
    done = pytest_in(project, ARGS).run()
    assert done.status == 1
    assert done.tests == (
        {
            "tests/test_other.py::test_other": "passed",
            "tests/test_suite.py::test_pass": "passed",
            "tests/test_suite.py::test_fail": "failed",
            "tests/test_suite.py::test_skip": "skipped",
            "tests/test_suite.py::test_error": "error",
        }
    )


def test_only_the_node_ids_asked_for_run(project: Path) -> None:
    """Ablation: replace `[i for i in items if i.nodeid in self.nodeids]` with `items` in
    `src/truegreen/plugin/isolate.py`."""
    everything = pytest_in(project, [*ARGS, "tests"]).run()
    assert len(everything.tests) == 5  # premise: the user's selection holds every test
    only = ["tests/test_suite.py::test_fail", "tests/test_other.py::test_other"]
    done = pytest_in(project, [*ARGS, "tests"]).run(only)
    assert done.tests == {only[0]: "failed", only[1]: "passed"}


def test_node_ids_that_do_not_resolve_from_here_are_still_kept_to(project: Path) -> None:
    """Run from tests/, where node ids (relative to the rootdir) are not paths."""
    (project / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    only = ["tests/test_suite.py::test_pass"]
    done = pytest_in(project / "tests", ARGS).run(only)
    assert done.tests == {only[0]: "passed"}
    assert done.of("tests/test_suite.py::test_fail") == MISSING


def test_a_run_without_the_plugin_is_an_error_naming_the_exit_status(project: Path) -> None:
    with pytest.raises(UsageError, match=r"^leaks: expected pytest to run .* found exit 4: "):
        pytest_in(project, [*ARGS, "-p", "no:truegreen"]).run()


def test_units_come_back_in_collection_order(project: Path) -> None:
    units = pytest_in(project, [*ARGS, "tests/test_other.py", "tests/test_suite.py"])
    assert list(units.collect_units()) == [
        "tests/test_other.py::test_other",
        "tests/test_suite.py::test_pass",
        "tests/test_suite.py::test_fail",
        "tests/test_suite.py::test_skip",
        "tests/test_suite.py::test_error",
    ]


def test_a_collection_without_the_plugin_is_an_error_with_pytest_s_last_word(
    project: Path,
) -> None:
    with pytest.raises(UsageError, match=r"^leaks: expected pytest to collect with '-q -p "):
        pytest_in(project, [*ARGS, "-p", "no:truegreen"]).collect_units()


def test_a_run_in_an_order_runs_exactly_those_tests_in_it(project: Path) -> None:
    order = ["tests/test_suite.py::test_fail", "tests/test_other.py::test_other"]
    done = pytest_in(project, ARGS).run(order=order)
    (stream,) = done.streams
    started = [r["test"] for r in stream.records if r.get("event") == "test_start"]
    assert started == order
    assert done.tests == {order[0]: "failed", order[1]: "passed"}


@pytest.mark.parametrize(
    ("output", "said"),
    [
        (
            "ERROR: usage: pytest [options]\npytest: error: unrecognized arguments: --x\n"
            "  inifile: None\n  rootdir: /tmp/p\n",
            "pytest: error: unrecognized arguments: --x",
        ),
        ("..F\n==== 1 failed, 2 passed in 0.1s ====\n\n", "1 failed, 2 passed in 0.1s"),
        ("", "no output"),
    ],
)
def test_the_last_line_is_what_went_wrong(output: str, said: str) -> None:
    assert last_line(output) == said


def test_a_line_of_source_that_mentions_errors_is_not_the_error() -> None:
    output = "    raise errors[0]\nE   PytestUnraisableExceptionWarning: unclosed\n1 failed\n"
    assert last_line(output) == "E   PytestUnraisableExceptionWarning: unclosed"


def test_a_probing_run_leaves_the_ci_report_alone_and_the_users_run_writes_it(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A CI's ``PYTEST_ADDOPTS=--junitxml=...`` is for its own run: every run a verb starts to
    probe the suite (ablate, flakes, leaks) would overwrite it with its own.

    Ablation: replace `probe_environment(environ)` with `environ` in
    `src/truegreen/runner/process.py`: the probe writes the report. Restored."""
    report = tmp_path_factory.mktemp("ci") / "junit.xml"
    env = {**os.environ, "PYTEST_ADDOPTS": f"-p no:randomly --junitxml={report}"}
    args = [*ARGS, "tests/test_other.py"]
    # premise: the variable reaches a run of the user's suite, which writes the report
    done = PytestProcess(args, who="run", env=env, cwd=project, keep_reports=True).run()
    assert done.status == 0
    assert report.is_file()
    report.unlink()
    done = PytestProcess(args, who="flakes", env=env, cwd=project).run()
    assert done.status == 0
    assert done.tests == {"tests/test_other.py::test_other": "passed"}
    assert not report.exists()
