"""Report and coverage options: the CI run's own, left out of truegreen's probing runs."""

from __future__ import annotations

import pytest

from truegreen.core.reports import probe_environment, without_reports


def test_report_and_coverage_options_are_left_out_in_every_spelling() -> None:
    """Ablation: replace `arg in VALUED` with `False` in `src/truegreen/core/reports.py`:
    the values of the spaced spellings stay behind as arguments. Restored."""
    args = [
        "-q", "--junitxml", "a.xml", "--junit-xml=b.xml", "--html", "r.html",
        "--self-contained-html", "--report-log=log.json", "--json-report",
        "--cov-report", "xml:cov.xml", "--cov-fail-under=90", "tests",
    ]  # fmt: skip
    assert without_reports(args) == ["-q", "tests"]


@pytest.mark.parametrize(
    ("args", "kept"),
    [
        (["--cov", "-x"], ["-x"]),
        (["--cov=src", "-x"], ["-x"]),
        (["--cov", "src", "-x"], ["-x"]),
        (["-x", "--cov"], ["-x"]),
    ],
)
def test_cov_takes_its_source_only_when_one_follows(args: list[str], kept: list[str]) -> None:
    """Ablation: replace `following.startswith("-")` with `False` in
    `src/truegreen/core/reports.py`: the option after a bare --cov is lost. Restored."""
    assert without_reports(args) == kept


def test_options_that_change_a_run_stay() -> None:
    """Ablation: replace `arg not in FLAGS` with `False` in `src/truegreen/core/reports.py`.
    Restored."""
    args = ["-p", "no:cacheprovider", "--import-mode=importlib", "-o", "xfail_strict=true",
            "--strict-markers", "--covered-by-nothing"]  # fmt: skip
    assert without_reports(args) == args


def test_the_probe_environment_keeps_the_rest_of_addopts() -> None:
    """Ablation: delete `env[ADDOPTS] = shlex.join(kept)` in `src/truegreen/core/reports.py`.
    Restored."""
    env = probe_environment(
        {"PYTEST_ADDOPTS": "-p no:cacheprovider --junitxml='ci out.xml' -o 'a=b c'", "X": "1"}
    )
    assert env == {"PYTEST_ADDOPTS": "-p no:cacheprovider -o 'a=b c'", "X": "1"}


def test_addopts_of_reports_only_is_left_out_whole() -> None:
    """Ablation: delete `del env[ADDOPTS]` in `src/truegreen/core/reports.py`. Restored."""
    assert probe_environment({"PYTEST_ADDOPTS": "--junitxml=ci.xml", "X": "1"}) == {"X": "1"}


@pytest.mark.parametrize("addopts", ["", "-x 'unclosed", "-q -x"])
def test_addopts_without_reports_or_unreadable_is_left_as_it_is(addopts: str) -> None:
    """pytest says what is wrong with an unreadable PYTEST_ADDOPTS, in the user's terms.

    Ablation: replace `ValueError` with `KeyError` in `src/truegreen/core/reports.py`: the
    unreadable one raises. Restored."""
    environ = {"PYTEST_ADDOPTS": addopts}
    assert probe_environment(environ) == environ
