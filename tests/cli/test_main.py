"""The truegreen command itself: verbs, usage errors, exit statuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from truegreen import __version__
from truegreen.cli import VERBS, Status, main


def test_no_verb_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == Status.USAGE
    assert "truegreen demo" in capsys.readouterr().out


def test_an_unknown_verb_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dcotor"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("truegreen: error: truegreen: argument VERB: invalid choice: 'dcotor'")
    assert err.count("\n") == 1


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"truegreen {__version__}\n"


@pytest.mark.parametrize("verb", ["audit", "demo", "doctor"])
def test_every_verb_has_help_with_an_example(verb: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([verb, "--help"]) == 0
    out = capsys.readouterr().out
    assert "example:" in out
    assert f"truegreen {verb}" in out.split("example:", 1)[1]


HELP_PAGES = [[verb] for verb in VERBS] + [["shards", "verify"], ["shards", "plan"]]


@pytest.mark.parametrize("words", HELP_PAGES, ids=" ".join)
def test_help_wraps_to_the_terminal_and_its_example_fits_80_columns(
    words: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The description follows the terminal's width (argparse reads COLUMNS); the example keeps
    its lines as written, to be copied, and each fits a terminal of 80 columns.

    Ablation: replace `fill(paragraph, width, indent)` with `indent + paragraph` in
    `src/truegreen/cli/__init__.py`.
    """
    monkeypatch.setenv("COLUMNS", "70")
    assert main([*words, "--help"]) == 0
    description, example = capsys.readouterr().out.split("\nexample:\n")
    assert f"truegreen {words[0]}" in example
    assert len(description.splitlines()) > 3
    too_wide = [line for line in description.splitlines() if len(line) > 70]
    assert too_wide == []
    assert [line for line in example.splitlines() if len(line) > 80] == []


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["run", "--deadline", "-3"], "truegreen run: argument --deadline: expected a number "
         "of seconds above 0 and at most 604800 (a week), found '-3'"),
        (["run", "--deadline", "nan"], "truegreen run: argument --deadline: expected a number "
         "of seconds above 0 and at most 604800 (a week), found 'nan'"),
        (["run", "--file-timeout", "inf"], "truegreen run: argument --file-timeout: expected a "
         "number of seconds above 0 and at most 604800 (a week), found 'inf'"),
        (["run", "-j", "0"], "truegreen run: argument -j/--jobs: expected a whole number of at "
         "least 1, found '0'"),
        (["run", "--retries", "-1"], "truegreen run: argument --retries: expected a whole "
         "number of at least 0, found '-1'"),
        (["ablate", "--records", "-j", "two"], "truegreen ablate: argument -j/--jobs: expected "
         "a whole number of at least 1, found 'two'"),
        (["ablate", "--records", "--run-timeout", "0"], "truegreen ablate: argument "
         "--run-timeout: expected a number of seconds above 0 and at most 604800 (a week), "
         "found '0'"),
    ],
)  # fmt: skip
def test_seconds_and_counts_mean_the_same_in_every_verb(
    words: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A negative deadline, a NaN timeout or zero jobs would start a run that ends at once or
    never starts a test: each is one usage line before anything runs.

    Ablation: replace `0 < value <= MAX_SECONDS` with `True` in
    `src/truegreen/cli/__init__.py`.

    Ablation: replace `value < low` with `False` in `src/truegreen/cli/__init__.py`.
    """
    monkeypatch.chdir(tmp_path)  # without the check, the run starts here: nothing to collect
    assert main(words) == Status.USAGE
    assert capsys.readouterr().err == f"truegreen: error: {message}\n"
