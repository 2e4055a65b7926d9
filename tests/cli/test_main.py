"""The truegreen command itself: verbs, usage errors, exit statuses."""

from __future__ import annotations

import pytest

from truegreen import __version__
from truegreen.cli import Status, main


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
