"""``truegreen diff``: two runs' event streams compared, per test and in total."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from truegreen.cli import main

Record = dict[str, Any]


def _run(directory: Path, when: int, *tests: tuple[str, float, list[Record]], **kw: Any) -> str:
    """One run's stream, by hand: each test with its call's seconds and its own records
    (spawns, violations), attributed to it; ``outcomes`` overrides a test's call outcome."""
    run_id = f"20261202T0000{when:02d}Z-abcdef"
    outcomes: dict[str, str] = kw.get("outcomes", {})
    t = float(when * 100)
    records: list[Record] = [
        {"v": 1, "event": "process", "t": t, "pid": 10, "ppid": 1, "role": "session",
         "run": run_id},
        {"event": "session_start", "t": t, "worker": None},
    ]  # fmt: skip
    for name, call, extra in tests:
        records.append({"event": "test_start", "t": t, "test": name})
        records.extend({"t": t, "test": name, "pid": 10, **r} for r in extra)
        records.append({"event": "phase", "t": t + call, "test": name, "phase": "call",
                        "outcome": outcomes.get(name, "passed"), "duration": call})  # fmt: skip
        records.append({"event": "test_end", "t": t + call, "test": name, "duration": call})
        t += call
    records.append({"event": "session_end", "t": t, "exitstatus": 0, "worker": None})
    records.extend(kw.get("tail", []))
    (directory / run_id).mkdir(parents=True)
    (directory / run_id / "session-10.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records)
    )
    return run_id


def _spawn(program: str, verb: Any = None) -> Record:
    return {"event": "spawn", "program": program, "verb": verb, "site": "t.py:3"}


def _violation(kind: str, operation: str, target: str) -> Record:
    return {"event": "violation", "kind": kind, "where": "the test", "operation": operation,
            "target": target, "site": "t.py:4", "blocked": True}  # fmt: skip


def _diff(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    status = main(["diff", *argv, "--format", "json"])
    return status, json.loads(capsys.readouterr().out)


def test_a_program_newly_started_and_one_no_longer_started(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = tmp_path / "base", tmp_path / "head"
    _run(base, 1, ("t.py::a", 0.1, [_spawn("git", "init")]), ("t.py::b", 0.1, []))
    _run(head, 1, ("t.py::a", 0.1, [_spawn("git", "init"), _spawn("git", "commit")]),
         ("t.py::b", 0.1, [_spawn("docker", None)]))  # fmt: skip
    _run(base, 2, ("t.py::a", 0.1, [_spawn("git", "init")]), ("t.py::b", 0.1, [_spawn("make")]))
    status, data = _diff(capsys, str(base), str(head))
    assert status == 0  # nothing gated
    assert data["format"] == 1
    assert data["base"]["runs"] == ["20261202T000002Z-abcdef"]  # the latest run of BASE
    assert data["programs"]["new"] == {"t.py::a": ["git commit"], "t.py::b": ["docker"]}
    assert data["programs"]["gone"] == {"t.py::b": ["make"]}
    assert data["programs"]["total"] == {"new": ["docker", "git commit"], "gone": ["make"]}
    assert data["tests"] == {"added": [], "removed": []}
    assert main(["diff", str(base), str(head), "--fail-on", "new-programs"]) == 1
    out = capsys.readouterr().out
    assert "programs: 2 tests (+ new, - no longer)\n" in out
    assert "  t.py::a: + git commit\n" in out
    assert "  t.py::b: + docker, - make\n" in out
    assert "  in total: + docker, + git commit, - make\n" in out
    assert out.endswith("failed on: new-programs (2)\n")
    assert main(["diff", str(base), str(head), "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("### truegreen diff: ")
    assert "- `t.py::b`: + `docker`, - `make`\n" in out
    # the earlier run of BASE, by its id's start
    status, data = _diff(capsys, str(base), str(head), "--base-run", "20261202T000001Z")
    assert data["programs"]["gone"] == {}


def test_a_difference_not_named_in_fail_on_does_not_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only the gates asked for fail: a new program with --fail-on new-network is reported
    and exits 0.

    Ablation: replace `{gate: counts[gate] for gate in gates if counts[gate]}` with
    `{gate: n for gate, n in counts.items() if n}` in `src/truegreen/core/diff.py`."""
    base, head = tmp_path / "base", tmp_path / "head"
    _run(base, 1, ("t.py::a", 0.1, []))
    _run(head, 1, ("t.py::a", 0.1, [_spawn("docker")]))
    status, data = _diff(capsys, str(base), str(head), "--fail-on", "new-network")
    assert data["programs"]["new"] == {"t.py::a": ["docker"]}  # premise: there is a difference
    assert (status, data["failed_on"]) == (0, {})


def test_new_violations_network_writes_reads_and_refused_programs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = tmp_path / "base", tmp_path / "head"
    _run(base, 1, ("t.py::a", 0.1, [_violation("write", "open for writing", "/repo/out.txt")]))
    _run(head, 1, ("t.py::a", 0.1, [
        _violation("network", "connect to", "10.1.2.3:443"),
        _violation("read", "open for reading", "/home/dev/.netrc"),
        _violation("program", "start", "docker"),
    ]), tail=[{"event": "violation", "t": 1.0, "kind": "write", "test": None,
               "where": "collection", "operation": "open for writing",
               "target": "/repo/cache.db", "site": "conftest.py:2", "blocked": False,
               "pid": 10, "mode": "warn"}])  # fmt: skip
    status, data = _diff(capsys, str(base), str(head), "--fail-on", "new-network,new-reads")
    assert data["network"]["new"] == {"t.py::a": ["connect to 10.1.2.3:443"]}
    assert data["reads"]["new"] == {"t.py::a": ["open for reading /home/dev/.netrc"]}
    assert data["programs"]["new"] == {"t.py::a": ["docker (refused)"]}
    assert data["writes"]["new"] == {"collection": ["open for writing /repo/cache.db"]}
    assert data["writes"]["gone"] == {"t.py::a": ["open for writing /repo/out.txt"]}
    assert (status, data["failed_on"]) == (1, {"new-network": 1, "new-reads": 1})
    assert main(["diff", str(base), str(head), "--fail-on", "new-writes"]) == 1


def test_an_environment_variable_newly_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = tmp_path / "base", tmp_path / "head"
    reads = {"event": "env_reads", "names": ["MYAPP_MODE"]}
    _run(base, 1, ("t.py::a", 0.1, [reads]))
    _run(head, 1, ("t.py::a", 0.1, [{**reads, "names": ["MYAPP_BACKEND", "MYAPP_MODE"]}]))
    status, data = _diff(capsys, str(base), str(head), "--fail-on", "new-env")
    assert data["env"]["new"] == {"t.py::a": ["MYAPP_BACKEND"]}
    assert (status, data["failed_on"]) == (1, {"new-env": 1})
    main(["diff", str(base), str(head)])
    out = capsys.readouterr().out
    assert (
        "environment variables read: 1 test (+ new, - no longer)\n  t.py::a: + MYAPP_BACKEND\n"
        in out
    )


def test_a_port_the_system_handed_out_is_not_a_new_target(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A test's own server on port 0 gets another port each run: not a new target.

    Ablation: replace `sep and port.isdigit() and int(port) >= EPHEMERAL` with `False` in
    `src/truegreen/core/diff.py`."""
    base, head = tmp_path / "base", tmp_path / "head"
    _run(base, 1, ("t.py::a", 0.1, [_violation("network", "connect to", "127.0.0.1:41234")]))
    _run(
        head,
        1,
        (
            "t.py::a",
            0.1,
            [
                _violation("network", "connect to", "127.0.0.1:53111"),
                _violation("network", "connect to", "127.0.0.1:5432"),
            ],
        ),
    )
    _, data = _diff(capsys, str(base), str(head), "--fail-on", "new-network")
    assert data["network"]["new"] == {"t.py::a": ["connect to 127.0.0.1:5432"]}  # premise
    assert data["network"]["gone"] == {}


def test_tests_added_removed_and_outcomes_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A removed test's programs are not listed as no longer started: it is listed as removed.

    Ablation: replace `lost and test not in removed` with `lost` in
    `src/truegreen/core/diff.py`."""
    base, head = tmp_path / "base", tmp_path / "head"
    _run(base, 1, ("t.py::a", 0.1, []), ("t.py::old", 0.1, [_spawn("git", "init")]))
    _run(head, 1, ("t.py::a", 0.1, []), ("t.py::new", 0.1, [_spawn("git", "init")]),
         outcomes={"t.py::a": "failed"})  # fmt: skip
    status, data = _diff(capsys, str(base), str(head), "--fail-on", "removed-tests")
    assert data["tests"] == {"added": ["t.py::new"], "removed": ["t.py::old"]}
    assert data["outcomes"] == [{"test": "t.py::a", "base": "passed", "head": "failed"}]
    assert data["programs"]["new"] == {"t.py::new": ["git init"]}  # an added test's are new
    assert data["programs"]["total"] == {"new": [], "gone": []}
    assert data["programs"]["gone"] == {}
    assert (status, data["failed_on"]) == (1, {"removed-tests": 1})
    main(["diff", str(base), str(head)])
    out = capsys.readouterr().out
    assert "tests added (1)\n  + t.py::new\n" in out
    assert "tests removed (1)\n  - t.py::old\n" in out
    assert "outcomes changed (1)\n  t.py::a: passed -> failed\n" in out


def test_all_runs_takes_a_directory_s_shards_as_one_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = tmp_path / "base", tmp_path / "head"
    _run(base, 1, ("t.py::a", 0.1, []))  # shard 1 of 2
    _run(base, 2, ("t.py::b", 0.1, [_spawn("git", "init")]))  # shard 2 of 2
    listen = {"event": "listen", "protocol": "tcp", "port": 8080, "pid": 10}
    _run(head, 1, ("t.py::a", 0.1, []), ("t.py::b", 0.1, [_spawn("git", "init")]), tail=[listen])
    _, data = _diff(capsys, str(base), str(head))
    assert data["tests"] == {"added": ["t.py::a"], "removed": []}  # the latest shard only
    _, data = _diff(capsys, str(base), str(head), "--all-runs")
    assert data["base"]["runs"] == ["20261202T000001Z-abcdef", "20261202T000002Z-abcdef"]
    assert data["tests"] == {"added": [], "removed": []}
    assert data["programs"]["new"] == {}
    assert data["listeners"] == {"base": 0, "head": 1}
    main(["diff", str(base), str(head), "--all-runs"])
    assert "listening sockets opened\n  0 -> 1\n" in capsys.readouterr().out


def test_a_test_slower_beyond_the_ratio_and_floor_with_three_runs_a_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = tmp_path / "base", tmp_path / "head"
    for when, (slow, fast) in enumerate([(0.2, 0.001), (0.25, 0.001), (0.2, 0.001)], 1):
        _run(base, when, ("t.py::slow", slow, []), ("t.py::fast", fast, []))
    for when, (slow, fast) in enumerate([(0.6, 0.004), (0.7, 0.004), (0.5, 0.004)], 1):
        _run(head, when, ("t.py::slow", slow, []), ("t.py::fast", fast, []))
    status, data = _diff(capsys, str(base), str(head), "--fail-on", "slower")
    slower = data["slower"]
    assert slower["runs"] == {"base": 3, "head": 3}
    assert [s["test"] for s in slower["tests"]] == ["t.py::slow"]
    assert slower["tests"][0]["base_median_seconds"] == 0.2
    assert slower["tests"][0]["head_median_seconds"] == 0.6
    assert slower["tests"][0]["ratio"] == 3.0
    assert slower["suite"]["ratio"] == 3.0
    assert (status, data["failed_on"]) == (1, {"slower": 2})
    main(["diff", str(base), str(head)])
    out = capsys.readouterr().out
    assert "  t.py::slow: 0.200s -> 0.600s (x3.0, medians of 3 and 3 runs)\n" in out
    status, data = _diff(capsys, str(base), str(head), "--slower-ratio", "4", "--fail-on",
                         "slower")  # fmt: skip
    assert (status, data["slower"]["tests"]) == (0, [])


def test_a_microsecond_test_four_times_slower_is_not_slower(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Under the floor, a ratio is noise.

    Ablation: replace `after - before >= floor and after >= before * ratio and _apart(base, head)`
    with `after >= before * ratio and _apart(base, head)` in `src/truegreen/core/diff.py`."""
    base, head = tmp_path / "base", tmp_path / "head"
    for when in (1, 2, 3):
        _run(base, when, ("t.py::fast", 0.001, []))
        _run(head, when, ("t.py::fast", 0.004, []))
    status, data = _diff(capsys, str(base), str(head), "--fail-on", "slower")
    assert data["slower"]["enough_samples"]  # premise: three runs a side, four times slower
    assert (status, data["slower"]["tests"]) == (0, [])


def test_medians_apart_by_one_busy_moment_are_not_slower(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The medians grew past the ratio and the floor, but the samples overlap: noise.

    Ablation: replace `after - before >= floor and after >= before * ratio and _apart(base, head)`
    with `after - before >= floor and after >= before * ratio` in
    `src/truegreen/core/diff.py`."""
    base, head = tmp_path / "base", tmp_path / "head"
    for when, (before, after) in enumerate([(0.05, 0.25), (0.30, 0.20), (0.06, 0.04)], 1):
        _run(base, when, ("t.py::a", before, []))
        _run(head, when, ("t.py::a", after, []))
    status, data = _diff(capsys, str(base), str(head), "--fail-on", "slower")
    assert data["slower"]["enough_samples"]  # premise: medians 0.06 and 0.20, three runs a side
    assert (status, data["slower"]["tests"], data["slower"]["suite"]) == (0, [], None)


def test_fewer_than_three_runs_a_side_is_not_enough_samples(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two runs ten times slower are not called slower: the report says why.

    Ablation: replace `len(base) < MIN_SAMPLES or len(head) < MIN_SAMPLES` with
    `not base or not head` in `src/truegreen/core/diff.py`."""
    base, head = tmp_path / "base", tmp_path / "head"
    for when in (1, 2, 3):
        _run(base, when, ("t.py::a", 0.1, []))
    for when in (1, 2):
        _run(head, when, ("t.py::a", 1.0, []))
    status, data = _diff(capsys, str(base), str(head), "--fail-on", "slower")
    assert data["slower"]["runs"] == {"base": 3, "head": 2}
    assert not data["slower"]["enough_samples"]
    assert (status, data["slower"]["tests"], data["slower"]["suite"]) == (0, [], None)
    main(["diff", str(base), str(head)])
    out = capsys.readouterr().out
    assert "slower: not enough samples: 3 base and 2 head runs, 3 a side needed" in out
    assert "no differences in behaviour" in out


def test_bad_input_is_one_line_and_exit_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unknown gate, a missing directory, one without streams, an unknown run: refused.

    Ablation: replace `[w for w in words if w not in GATES]` with `[]` in
    `src/truegreen/cli/diff.py`."""
    base = tmp_path / "base"
    _run(base, 1, ("t.py::a", 0.1, []))
    (tmp_path / "empty").mkdir()
    capsys.readouterr()
    assert main(["diff", str(base), str(base), "--fail-on", "new-programs,new-dragons"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "'new-dragons'" in err
    assert "expected a comma-separated list of new-programs, new-network" in err
    assert main(["diff", str(base), str(tmp_path / "missing")]) == 2
    assert capsys.readouterr().err == (
        f"truegreen: error: {tmp_path / 'missing'}: expected a metrics directory, found none\n"
    )
    assert main(["diff", str(tmp_path / "empty"), str(base)]) == 2
    assert "expected *.jsonl event streams, found none" in capsys.readouterr().err
    assert main(["diff", str(base), str(base), "--head-run", "2025"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"truegreen: error: {base}: --head-run 2025: expected one of the runs")
    # a run's own directory stands for its run
    run_dir = next(base.iterdir())
    status, data = _diff(capsys, str(run_dir), str(base))
    assert (status, data["base"]["runs"]) == (0, [run_dir.name])


SUITE = """
import subprocess

def test_plain():
    pass
"""

SUITE_WITH_GIT = """
import os
import subprocess

def test_plain():
    subprocess.run(["git", "--version"], check=True, capture_output=True)
    assert os.environ.get("MYAPP_BACKEND", "file") == "file"

def test_added():
    pass
"""


def test_two_real_runs_of_a_project_diffed(pytester: pytest.Pytester) -> None:
    """The base run starts nothing; the head run's test starts ``git --version`` (a program
    the guards allow) and reads a variable it leaves unset: the diff names both, per test and
    in total, and gates on them."""
    pytester.makepyfile(test_suite=SUITE)
    pytester.runpytest_subprocess("--truegreen-metrics=base", "-p", "no:randomly").assert_outcomes(
        passed=1
    )
    pytester.makepyfile(test_suite=SUITE_WITH_GIT)
    pytester.runpytest_subprocess("--truegreen-metrics=head", "-p", "no:randomly").assert_outcomes(
        passed=2
    )
    argv = [sys.executable, "-m", "truegreen", "diff", "base", "head", "--format", "json",
            "--fail-on", "new-programs,new-env"]  # fmt: skip
    done = subprocess.run(argv, cwd=pytester.path, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    data = json.loads(done.stdout)
    assert data["programs"]["new"] == {"test_suite.py::test_plain": ["git"]}
    assert data["programs"]["total"]["new"] == ["git"]
    assert data["tests"]["added"] == ["test_suite.py::test_added"]
    assert data["env"]["new"] == {"test_suite.py::test_plain": ["MYAPP_BACKEND"]}
    assert data["failed_on"] == {"new-programs": 1, "new-env": 1}
    assert done.stderr == ""
