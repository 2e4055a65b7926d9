"""With the metrics on, each test's environment reads are in the event stream: names only."""

from __future__ import annotations

import json

import pytest

SUITE = """
import os

def test_reads():
    assert os.environ.get("MYAPP_MODE", "modern") == "modern"  # unset: its default taken
    assert os.environ["MYAPP_TOKEN"]
    assert os.environ["PATH"]

def test_reads_nothing():
    pass
"""

CANARY = "canary-5f1e2d"


GIT_SUITE = """
import subprocess

def test_commits(tmp_path):
    subprocess.run(["git", "init", "-q", "-b", "main", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "commit", "-q", "--allow-empty", "-m", "x"])
"""


def test_the_guards_own_reads_are_not_the_test_s(pytester: pytest.Pytester) -> None:
    """The spawn guard reads the git identity variables to tell an anonymous commit; those
    reads are truegreen's, not the test's, and the stream does not count them.

    Ablation: replace `environ is not _ENVIRON or muted()` with `environ is not _ENVIRON` in
    `src/truegreen/plugin/ambient.py`."""
    pytester.makepyfile(test_suite=GIT_SUITE)
    pytester.runpytest_subprocess(
        "--truegreen-metrics=metrics", "-p", "no:randomly"
    ).assert_outcomes(passed=1)
    records = [json.loads(line) for p in (pytester.path / "metrics").rglob("*.jsonl")
               for line in p.read_text().splitlines()]  # fmt: skip
    spawns = [r for r in records if r["event"] == "spawn" and r["verb"] == "commit"]
    assert [s.get("anonymous") for s in spawns] == [True]  # premise: the identity was checked
    reads = [r["names"] for r in records if r["event"] == "env_reads"]
    assert reads == []


def test_each_test_s_variable_names_are_recorded_never_a_value(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The names a test asked for, set or not, are recorded; a value never is, and the
    variables every process reads (``PATH``) are left out.

    Ablation: replace
    `n not in ORDINARY and not n.startswith(_PREFIXES) and not n.startswith(_UNRECORDED)`
    with `not n.startswith(_UNRECORDED)` in `src/truegreen/plugin/ambient.py`."""
    monkeypatch.setenv("MYAPP_TOKEN", CANARY)
    pytester.makepyfile(test_suite=SUITE)
    pytester.runpytest_subprocess("--truegreen-metrics=metrics", "-p", "no:randomly",
                                  "--truegreen-set", "keep-env=MYAPP_TOKEN").assert_outcomes(
        passed=2
    )  # fmt: skip
    streams = list((pytester.path / "metrics").rglob("*.jsonl"))
    records = [json.loads(line) for p in streams for line in p.read_text().splitlines()]
    reads = [r for r in records if r["event"] == "env_reads"]
    assert [r["test"] for r in reads] == ["test_suite.py::test_reads"]
    assert "PATH" not in reads[0]["names"]
    assert reads[0]["names"] == ["MYAPP_MODE", "MYAPP_TOKEN"]
    assert all(CANARY not in p.read_text() for p in streams)
