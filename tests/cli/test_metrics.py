"""The event stream and truegreen metrics: what a run did, including a run that was killed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from truegreen.cli import main

CANARY = "tg-canary-metrics-51"

SUITE = f"""
import os
import signal
import subprocess
import sys
import time

import pytest


@pytest.fixture
def slow_fixture():
    time.sleep(0.05)


def test_fast():
    pass


def test_with_fixture(slow_fixture):
    pass


def test_runs_git_and_python():
    subprocess.run(["git", "--version"], capture_output=True)
    subprocess.run([sys.executable, "-c", "pass", "{CANARY}"])
    assert os.environ["MY_SECRET_SETTING"] == "{CANARY}"


@pytest.mark.skip(reason="later")
def test_skipped():
    pass
"""


def run_suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str) -> Path:
    monkeypatch.setenv("MY_SECRET_SETTING", CANARY)
    pytester.makepyprojecttoml('[tool.truegreen]\nkeep-env = ["MY_SECRET_SETTING"]\n')
    pytester.makepyfile(test_suite=SUITE)
    metrics = pytester.path / "metrics"
    result = pytester.runpytest_subprocess(f"--truegreen-metrics={metrics}", *args)
    result.assert_outcomes(passed=3, skipped=1)
    return metrics


def test_the_stream_records_tests_phases_fixtures_and_programs_but_no_secret(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The canary sits in the environment and in a child's arguments; no file holds it."""
    metrics = run_suite(pytester, monkeypatch)
    files = sorted(metrics.rglob("*.jsonl"))
    text = "".join(f.read_text() for f in files)
    assert CANARY in (pytester.path / "test_suite.py").read_text()  # premise: it was used
    assert CANARY not in text
    records = [json.loads(line) for f in files for line in f.read_text().splitlines()]
    assert records[0]["v"] == 1
    events = {r["event"] for r in records}
    assert {"process", "session_start", "test_start", "phase", "fixture", "test_end",
            "spawn", "session_end"} <= events  # fmt: skip
    spawned = {(r["program"], r["verb"]) for r in records if r["event"] == "spawn"}
    assert ("git", None) in spawned or any(p == "git" for p, _ in spawned)
    assert any(p.startswith("python") for p, _ in spawned)


def test_metrics_report_and_durations_file(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    metrics = run_suite(pytester, monkeypatch, "-n", "2")
    assert len(list(metrics.glob("*/worker-*.jsonl"))) == 2
    out = pytester.path / "durations.json"
    capsys.readouterr()  # pytester's own "running: ..." lines
    assert main(["metrics", str(metrics), "--format", "json", "--durations-out", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["tests"] == 4
    assert data["outcomes"] == {"passed": 3, "skipped": 1}
    assert data["workers"] == 2
    assert data["unfinished"] == []
    assert data["fixtures"][0][0] == "slow_fixture"
    assert data["fixtures"][0][2] >= 0.05
    durations = json.loads(out.read_text())
    assert set(durations) == {f"test_suite.py::{n}" for n in
                              ("test_fast", "test_with_fixture", "test_runs_git_and_python",
                               "test_skipped")}  # fmt: skip
    assert main(["metrics", str(metrics), "--format", "markdown"]) == 0
    assert capsys.readouterr().out.startswith("### truegreen metrics: 4 tests")


def test_a_killed_run_leaves_a_readable_stream_naming_the_unfinished_test(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makepyfile(
        """
        import os
        import signal

        def test_first():
            pass

        def test_killed():
            os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    metrics = pytester.path / "metrics"
    pytester.runpytest_subprocess(f"--truegreen-metrics={metrics}", "-p", "no:randomly")
    (stream,) = metrics.glob("*/session-*.jsonl")
    with stream.open("ab") as handle:
        handle.write(b'{"event": "phase", "te')  # a write the kill cut short
    assert main(["metrics", str(metrics)]) == 0
    out = capsys.readouterr().out
    assert "started and never finished" in out
    assert "::test_killed" in out.split("started and never finished")[1]
    assert f"note: {stream} ends in a truncated line" in out


def test_a_corrupt_line_is_one_error_naming_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "session-1.jsonl").write_text('{"v": 1, "event": "process"}\nnot json\n{}\n')
    assert main(["metrics", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"truegreen: error: {tmp_path / 'session-1.jsonl'}:2: expected one JSON")
    assert err.count("\n") == 1


def test_metrics_as_a_real_command(tmp_path: Path) -> None:
    (tmp_path / "session-1.jsonl").write_text(
        '{"v": 1, "event": "process", "t": 1.0}\n{"event": "test_start", "t": 1.0, "test": "a"}\n'
        '{"event": "phase", "t": 1.5, "test": "a", "phase": "call", "outcome": "passed", '
        '"duration": 0.5}\n{"event": "test_end", "t": 1.5, "test": "a"}\n'
    )
    argv = [sys.executable, "-m", "truegreen", "metrics", str(tmp_path), "--format", "json"]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["slowest_tests"] == [["a", 0.5]]


def test_a_record_not_of_the_schema_is_skipped_and_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ablation: replace `data["skipped"][: args.top]` with `[]` in
    `src/truegreen/cli/metrics.py`: the report does not say which record it left out. Restored."""
    stream = tmp_path / "session-1.jsonl"
    stream.write_text(
        '{"v": 1, "event": "process", "t": 1.0, "pid": 1, "ppid": 0, "role": "session"}\n'
        '{"event": "test_start", "t": 1.0, "test": "a"}\n{"event": "test_end", "t": "late"}\n'
    )
    assert main(["metrics", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "started and never finished\n  a\n" in out  # premise: the bad end was not trusted
    assert out.endswith(
        "note: 1 record skipped, not of the stream's schema:\n"
        f"  {stream}:3: test_end: field 't': expected number, found str 'late'\n"
    )


TEARDOWNS = """
import time

import pytest


@pytest.fixture(scope="session")
def database():
    yield
    time.sleep(0.06)


@pytest.fixture
def workdir(database):
    yield
    time.sleep(0.03)


def test_first(workdir):
    pass


def test_last(database):
    pass
"""


def test_each_fixture_teardown_is_timed_and_nested_in_its_test_teardown(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    """A function fixture's teardown counts in its test; the session fixture's in the last
    test, during whose teardown pytest ended it. The trace nests each inside that teardown.

    Ablation: replace `spans.get(phase, inside)` with `inside` in `src/truegreen/core/trace.py`:
    the teardowns are kept inside their tests only, and overlap its teardown phase."""
    pytester.makepyfile(test_teardowns=TEARDOWNS)
    metrics = pytester.path / "metrics"
    result = pytester.runpytest_subprocess(f"--truegreen-metrics={metrics}", "-p", "no:randomly")
    result.assert_outcomes(passed=2)
    trace = pytester.path / "trace.json"
    capsys.readouterr()
    assert main(["metrics", str(metrics), "--format", "json", "--trace", str(trace)]) == 0
    data = json.loads(capsys.readouterr().out)
    seconds = {name: (n, s) for name, n, s in data["fixture_teardowns"]}
    assert seconds.keys() == {"database", "workdir"}
    assert seconds["database"][0] == seconds["workdir"][0] == 1
    assert seconds["database"][1] >= 0.06
    assert 0.03 <= seconds["workdir"][1] < 0.06  # its own teardown, not the session's
    complete = [e for e in json.loads(trace.read_text())["traceEvents"] if e["ph"] == "X"]
    for name, test in (("workdir", "test_first"), ("database", "test_last")):
        (event,) = [e for e in complete if e["name"] == f"teardown {name}"]
        assert event["args"]["test"] == f"test_teardowns.py::{test}"
        (phase,) = [e for e in complete if e["cat"] == "phase" and e["name"] == "teardown"
                    and e["args"]["test"] == event["args"]["test"]]  # fmt: skip
        assert phase["ts"] <= event["ts"]
        assert event["ts"] + event["dur"] <= phase["ts"] + phase["dur"]
    assert _overlapping(complete) == []  # what a trace viewer needs to draw them as a stack


def _overlapping(complete: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Pairs of complete events on one thread that overlap without one holding the other."""
    found = []
    for thread in {(e["pid"], e["tid"]) for e in complete}:
        ordered = sorted((e for e in complete if (e["pid"], e["tid"]) == thread),
                         key=lambda e: (e["ts"], -e["dur"]))  # fmt: skip
        stack: list[dict[str, Any]] = []
        for event in ordered:
            while stack and stack[-1]["ts"] + stack[-1]["dur"] <= event["ts"]:
                stack.pop()
            if stack and event["ts"] + event["dur"] > stack[-1]["ts"] + stack[-1]["dur"]:
                found.append((stack[-1]["name"], event["name"]))
            stack.append(event)
    return found


STREAM = (
    '{"v": 1, "event": "process", "t": 1.0, "pid": 1, "ppid": 0, "role": "session"}\n'
    '{"event": "test_start", "t": 1.0, "test": "a"}\n'
    '{"event": "test_end", "t": 1.5, "test": "a", "duration": 0.5}\n'
)


@pytest.mark.parametrize("flag", ["--html", "--durations-out", "--trace"])
@pytest.mark.parametrize(
    ("where", "found"),
    [
        ("no/such/dir/out", "No such file or directory"),
        pytest.param("/dev/full", "No space left on device", marks=pytest.mark.platforms("linux")),
    ],
)  # fmt: skip
def test_an_output_it_cannot_write_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str, where: str, found: str
) -> None:
    """A missing directory or a full disk (`/dev/full`) ended the verb with a traceback.

    Ablation: replace `OSError` with `ZeroDivisionError` in
    `src/truegreen/cli/metrics.py`."""
    (tmp_path / "session-1.jsonl").write_text(STREAM)
    assert main(["metrics", str(tmp_path)]) == 0  # premise: the stream itself reads
    capsys.readouterr()
    target = where if where.startswith("/") else str(tmp_path / where)
    assert main(["metrics", str(tmp_path), flag, target]) == 2
    assert capsys.readouterr().err == (
        f"truegreen: error: {flag} {target}: expected a file it can write, found {found}\n"
    )
