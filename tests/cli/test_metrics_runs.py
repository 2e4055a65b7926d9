"""One run, one report: run ids in the event stream, the figures named, the trace-event JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from truegreen.cli import main
from truegreen.core.metrics import read_dir, runs

SUITE = """
import time

def test_one():
    time.sleep(0.02)

def test_two():
    time.sleep(0.02)

def test_three():
    pass

def test_four():
    pass
"""


def _headers(metrics: Path) -> list[dict[str, Any]]:
    """The process record of every file the pytest processes wrote (children's aside)."""
    return [json.loads(p.read_text().splitlines()[0]) for p in metrics.glob("*/*.jsonl")]


def test_an_xdist_run_is_one_run_and_a_second_run_into_the_same_directory_another(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    """The controller hands its id to its workers; a reused directory keeps the runs apart,
    and the report is of the latest only, saying the directory holds two.

    Ablation: replace `grouped[stream.run].append(stream)` with `grouped[""].append(stream)`
    in `src/truegreen/core/metrics.py`: the two runs are summed as one. Restored."""
    pytester.makepyfile(test_suite=SUITE)
    metrics = pytester.path / "metrics"
    for _ in range(2):
        pytester.runpytest_subprocess(f"--truegreen-metrics={metrics}", "-n", "2",
                                      "-p", "no:randomly").assert_outcomes(passed=4)  # fmt: skip
    headers = _headers(metrics)
    assert sorted(h["role"] for h in headers).count("worker") == 4  # premise: two xdist runs
    ids = {h["run"] for h in headers if "run" in h}
    assert len(ids) == 2
    for run_id in ids:  # each run: its controller and its two workers, in its own directory
        mine = [h for h in headers if h.get("run") == run_id]
        assert sorted(h["role"] for h in mine) == ["session", "worker", "worker"]
        assert all(p.parent.name == run_id for p in metrics.glob(f"{run_id}/*.jsonl"))
    capsys.readouterr()
    assert main(["metrics", str(metrics), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["tests"] == 4
    assert data["workers"] == 2
    assert [r["processes"] for r in data["runs"]] == [3, 3]
    assert data["run"] == data["runs"][-1]["id"]  # the latest
    assert main(["metrics", str(metrics)]) == 0
    out = capsys.readouterr().out
    assert f"note: {metrics} holds 2 runs; the latest is summarised" in out
    assert "--run ID picks one, --all sums them all" in out
    assert main(["metrics", str(metrics), "--all", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["workers"] == 4
    first = data["runs"][0]["id"]
    assert main(["metrics", str(metrics), "--run", first[:17], "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["run"] == first


def test_every_session_of_one_truegreen_run_is_one_run(tmp_path: Path) -> None:
    """``truegreen run --isolate-files`` runs each file in a pytest of its own: one run id,
    a lane per file in the timeline."""
    for name in ("test_a.py", "test_b.py"):
        (tmp_path / name).write_text("def test_it():\n    pass\n")
    argv = [sys.executable, "-m", "truegreen", "run", "--metrics", "metrics", "--isolate-files",
            "--", "-q", "-p", "no:cacheprovider"]  # fmt: skip
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    headers = _headers(tmp_path / "metrics")
    sessions = [h for h in headers if h["role"] == "session" and "run" in h]
    assert len(sessions) == 2  # premise: two pytest processes wrote
    assert len({h["run"] for h in sessions}) == 1
    found = runs(read_dir(tmp_path / "metrics"))
    assert len(found) == 1
    from truegreen.core.timeline import build

    assert sorted(lane.name for lane in build(found[0].streams).lanes) == ["test_a.py", "test_b.py"]


def _stream(directory: Path, name: str, *records: dict[str, Any]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _process(pid: int, role: str, t: float, run: str | None = None) -> dict[str, Any]:
    record = {"v": 1, "event": "process", "t": t, "pid": pid, "ppid": 1, "role": role}
    return {**record, "run": run} if run else record


def _test(name: str, start: float, call: float, outcome: str = "passed") -> list[dict[str, Any]]:
    return [
        {"event": "test_start", "t": start, "test": name},
        {"event": "fixture", "t": start + 0.1, "test": name, "fixture": "db", "scope": "function",
         "duration": 0.1},
        {"event": "phase", "t": start + 0.1, "test": name, "phase": "setup", "outcome": "passed",
         "duration": 0.1},
        {"event": "phase", "t": start + 0.1 + call, "test": name, "phase": "call",
         "outcome": outcome, "duration": call},
        {"event": "phase", "t": start + 0.2 + call, "test": name, "phase": "teardown",
         "outcome": "passed", "duration": 0.1},
        {"event": "test_end", "t": start + 0.2 + call, "test": name, "duration": 0.2 + call},
    ]  # fmt: skip


RUN = "20261202T000000Z-abcdef"


def _xdist_run(metrics: Path) -> Path:
    """A controller and two workers, by hand: gw0 ran two tests, gw1 one that failed."""
    run = metrics / RUN
    _stream(
        run,
        "session-10.jsonl",
        _process(10, "session", 100.0, RUN),
        {"event": "session_start", "t": 100.0, "worker": None},
        {"event": "session_end", "t": 104.0, "exitstatus": 1, "worker": None},
    )
    _stream(
        run,
        "worker-11.jsonl",
        _process(11, "worker", 101.0, RUN),
        {"event": "session_start", "t": 101.0, "worker": "gw0"},
        *_test("t.py::a", 101.5, 0.5),
        *_test("t.py::b", 102.5, 0.5),
        {"event": "session_end", "t": 103.5, "exitstatus": 0, "worker": "gw0"},
    )
    _stream(
        run,
        "worker-12.jsonl",
        _process(12, "worker", 101.0, RUN),
        {"event": "session_start", "t": 101.0, "worker": "gw1"},
        *_test("t.py::c", 101.5, 1.5, "failed"),
        {"event": "session_end", "t": 103.5, "exitstatus": 1, "worker": "gw1"},
    )
    # the guards' file of gw0 (no run in its header: its directory names the run)
    _stream(run / "run-11", "session-11.jsonl", _process(11, "session", 101.0),
            {"event": "spawn", "t": 102.0, "test": "t.py::a", "program": "git", "verb": "init",
             "site": "t.py:3", "pid": 11})  # fmt: skip
    return run


def test_a_stream_without_a_run_id_is_a_run_of_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Files written before run ids (flat in the directory, no ``run``) stay readable, as one
    run beside the new ones; the guards' file in a run's directory belongs to that run."""
    _xdist_run(tmp_path)
    _stream(
        tmp_path,
        "session-5.jsonl",
        _process(5, "session", 50.0),
        {"event": "session_start", "t": 50.0, "worker": None},
        *_test("old.py::x", 50.5, 1),
    )
    found = runs(read_dir(tmp_path))
    assert [(r.id, r.processes, r.tests) for r in found] == [("", 1, 1), (RUN, 3, 3)]
    assert any(s.path.parent.name == "run-11" for s in found[1].streams)
    assert main(["metrics", str(tmp_path), "--run", "none", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["run"], data["tests"]) == ("", 1)
    assert main(["metrics", str(tmp_path), "--run", "2025"]) == 2
    assert capsys.readouterr().err == (
        f"truegreen: error: --run 2025: expected one of the runs none, {RUN}, found no such run\n"
    )


def test_each_figure_says_what_it_measures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _xdist_run(tmp_path)
    assert main(["metrics", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"truegreen metrics: 3 tests (1 failed, 2 passed), run {RUN}\n\n")
    assert (
        "     4.00s  wall clock of the session: first process start to last process end\n"
        "     1.70s  wall clock of the tests: first test start to last test end\n"
        "     3.10s  test time: setup + call + teardown of every test, summed over 2 processes\n"
        "       91%  parallel efficiency: test time / (2 processes at once x the tests' "
        "wall clock)\n"
    ) in out
    assert "cleanup tail (last test end to process end)\n     0.300s  gw0\n     0.300s  gw1" in out


def test_one_process_has_no_parallel_efficiency_and_singular_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ablation: replace `self.parallel > 1` with `self.parallel >= 1` in
    `src/truegreen/core/metrics.py`: one process is given a parallel efficiency. Restored."""
    _stream(
        tmp_path / RUN,
        "session-5.jsonl",
        _process(5, "session", 50.0, RUN),
        {"event": "session_start", "t": 50.0, "worker": None},
        *_test("a.py::x", 50.5, 1),
    )
    assert main(["metrics", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"truegreen metrics: 1 test (1 passed), run {RUN}\n")
    assert "test time: setup + call + teardown of every test\n" in out  # premise: the figures
    assert "parallel efficiency" not in out
    assert "holds" not in out  # one run: nothing to say about others
    assert main(["metrics", str(tmp_path), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["parallel_efficiency"] is None


def test_the_trace_is_trace_event_json_with_a_named_lane_per_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _xdist_run(tmp_path)
    out = tmp_path / "trace.json"
    assert main(["metrics", str(tmp_path), "--trace", str(out), "--format", "json"]) == 0
    captured = capsys.readouterr()
    json.loads(captured.out)  # the report stays JSON; where the trace went is on stderr
    assert captured.err == (
        f"truegreen metrics: wrote the trace to {out} (open it in ui.perfetto.dev or "
        "chrome://tracing)\n"
    )
    trace = json.loads(out.read_text())
    assert trace["displayTimeUnit"] == "ms"
    found = trace["traceEvents"]
    names = {e["pid"]: e["args"]["name"] for e in found
             if e["ph"] == "M" and e["name"] == "process_name"}  # fmt: skip
    assert names == {10: "controller", 11: "gw0", 12: "gw1"}
    assert all(e["ph"] in ("M", "X", "i") and isinstance(e["pid"], int) and e["tid"] == e["pid"]
               for e in found)  # fmt: skip
    complete = [e for e in found if e["ph"] == "X"]
    assert all(isinstance(e["ts"], int) and isinstance(e["dur"], int) for e in complete)
    by_name = {e["name"]: e for e in complete if e["cat"] in ("test", "session")}
    c = by_name["t.py::c"]
    assert (c["pid"], c["ts"], c["dur"]) == (12, 1_500_000, 1_700_000)  # µs from the first record
    assert c["args"]["outcome"] == "failed"
    phases = [e for e in complete if e["cat"] == "phase" and e["args"]["test"] == "t.py::c"]
    assert [p["name"] for p in phases] == ["setup", "call", "teardown"]
    for inner in phases:  # nested in their test, as the viewers draw them
        assert c["ts"] <= inner["ts"]
        assert inner["ts"] + inner["dur"] <= c["ts"] + c["dur"]
    fixture = next(e for e in complete if e["cat"] == "fixture" and e["args"]["test"] == "t.py::c")
    assert (fixture["name"], fixture["dur"]) == ("fixture db", 100_000)
    assert [e["name"] for e in found if e["ph"] == "i"] == ["git init"]
    sessions = [e for e in complete if e["cat"] == "session"]
    assert [(e["pid"], e["dur"]) for e in sessions] == [(10, 4_000_000), (11, 2_500_000),
                                                        (12, 2_500_000)]  # fmt: skip


def test_file_sessions_one_after_another_have_no_parallel_efficiency(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two processes of one run that ran their tests one after the other (``truegreen run
    --isolate-files -j 1``) never ran two at once: no efficiency to speak of.

    Ablation: replace `max(peak, now)` with `max(peak, now + 1)` in
    `src/truegreen/core/metrics.py`: they are taken for two at once. Restored."""
    for pid, start in ((5, 50.0), (6, 52.0)):
        _stream(tmp_path / RUN, f"session-{pid}.jsonl", _process(pid, "session", start, RUN),
                {"event": "session_start", "t": start, "worker": None},
                *_test(f"f{pid}.py::x", start + 0.5, 1))  # fmt: skip
    assert main(["metrics", str(tmp_path), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["workers"], data["parallel"]) == (2, 1)
    assert data["parallel_efficiency"] is None


def test_the_run_id_a_runner_hands_over_is_used_and_not_passed_on_to_the_tests(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The id in the environment names the run; a pytest a test starts begins its own.

    Ablation: replace `os.environ.pop(protocol.RUN_ID_VAR, None)` with
    `os.environ.get(protocol.RUN_ID_VAR)` in `src/truegreen/plugin/metrics.py`: the tests
    see it. Restored."""
    from truegreen.core.protocol import RUN_ID_VAR

    monkeypatch.setenv(RUN_ID_VAR, RUN)
    pytester.makepyfile(
        test_sees=f"""
        import os

        def test_the_variable_is_gone():
            assert {RUN_ID_VAR!r} not in os.environ
        """
    )
    metrics = pytester.path / "metrics"
    result = pytester.runpytest_subprocess(f"--truegreen-metrics={metrics}")
    assert [h["run"] for h in _headers(metrics) if "run" in h] == [RUN]  # premise: it was read
    result.assert_outcomes(passed=1)
