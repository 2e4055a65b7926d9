"""The environment of ablation's runs, shared by the fork server and every run it forks."""

from __future__ import annotations

import pytest

from truegreen.runner.ablation import environment


def test_the_runs_leave_out_the_report_options_of_pytest_addopts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fork server is started with this environment and the runs it forks inherit it, so
    leaving the options out of each run's own start is not enough.

    Ablation: replace `probe_environment(os.environ)` with `dict(os.environ)` in
    `src/truegreen/runner/ablation.py`. Restored."""
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:randomly --junitxml=ci.xml --cov=src")
    assert environment()["PYTEST_ADDOPTS"] == "-p no:randomly"
