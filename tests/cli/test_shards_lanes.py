"""Evidence bound to a commit, across lanes: real manifests from real pytest runs, each lane a
CI job simulated by its variables (TRUEGREEN_LANE, GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT,
GITHUB_SHA), then ``truegreen shards verify`` over them."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from truegreen.core.platforms import OSES, host_from

HOST = host_from(sys.platform, platform.machine())
ELSEWHERE = next(name for name in OSES if name != HOST.os)
RUN_ID = "4242"
OTHER_SHA = "b" * 40

SUITE = f"""\
import pathlib

import pytest

HERE = pathlib.Path(__file__).parent


def test_plain():
    assert not (HERE / "red").exists()


@pytest.mark.platforms({HOST.os!r})
def test_this_os_only():
    pass


@pytest.mark.slow
def test_gate():
    pass
"""
ELSEWHERE_ONLY = f"""\
import pytest


def test_here():
    pass


@pytest.mark.platforms({ELSEWHERE!r})
def test_elsewhere():
    pass
"""
GATE = "--truegreen-must-run=test_suite.py::test_gate"


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def environment(**changes: str) -> dict[str, str]:
    """This process's variables without any CI run, lane or pytest option of its own."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GITHUB_", "TRUEGREEN_", "PYTEST_"))
    }
    env.update(changes)
    return env


def run_lane(suite: Path, out: Path, lane: str, attempt: int, *args: str, **env: str) -> int:
    """One lane's job: the suite run with the manifest written into ``out``."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
         f"--truegreen-manifest={out}", *args],
        cwd=suite, capture_output=True, text=True, check=False,
        env=environment(TRUEGREEN_LANE=lane, GITHUB_RUN_ID=RUN_ID,
                        GITHUB_RUN_ATTEMPT=str(attempt), **env),
    )  # fmt: skip
    assert (out / "shard-1-of-1.json").is_file(), done.stdout + done.stderr
    return done.returncode


class Lanes:
    """The runs every test here reads: a checkout at commit ``head``, its fast lane (the gate
    left out by -m), its slow lane run on demand (the gate alone), the fast lane's re-run
    (attempt 2, red), and a second suite with a test gated to another OS, tested under
    GITHUB_SHA."""

    def __init__(self, root: Path) -> None:
        self.suite = root / "suite"
        self.suite.mkdir()
        (self.suite / "test_suite.py").write_text(SUITE)
        (self.suite / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: the gate\n")
        (self.suite / ".gitignore").write_text("red\n__pycache__/\n")
        git(self.suite, "init", "-q", "-b", "main")
        git(self.suite, "add", "-A")
        git(self.suite, "-c", "user.name=Fixture Author", "-c",
            "user.email=fixture@example.invalid", "commit", "-q", "-m", "initial")  # fmt: skip
        self.head = git(self.suite, "rev-parse", "HEAD")
        self.out = root / "manifests"
        self.fast1, self.slow1, self.fast2 = (self.out / n for n in ("fast-1", "slow-1", "fast-2"))
        self.status = {
            "fast-1": run_lane(self.suite, self.fast1, "fast", 1, "-m", "not slow", GATE),
            "slow-1": run_lane(self.suite, self.slow1, "slow", 1, "-m", "slow"),
        }
        (self.suite / "red").write_text("the re-run fails\n")
        self.status["fast-2"] = run_lane(self.suite, self.fast2, "fast", 2, "-m", "not slow", GATE)
        (self.suite / "red").unlink()
        self.other = root / "other"
        self.other.mkdir()
        (self.other / "test_other.py").write_text(ELSEWHERE_ONLY)
        self.other_out = root / "other-manifests"
        self.status["other"] = run_lane(self.other, self.other_out, "fast", 1, GITHUB_SHA=OTHER_SHA)

    def manifest(self, directory: Path) -> dict[str, object]:
        loaded: dict[str, object] = json.loads((directory / "shard-1-of-1.json").read_text())
        return loaded


@pytest.fixture(scope="module")
def lanes(tmp_path_factory: pytest.TempPathFactory) -> Lanes:
    return Lanes(tmp_path_factory.mktemp("lanes"))


def verify(*args: str, cwd: Path, **env: str) -> tuple[int, list[str]]:
    done = subprocess.run(
        [sys.executable, "-m", "truegreen", "shards", "verify", *args],
        cwd=cwd, capture_output=True, text=True, check=False, env=environment(**env),
    )  # fmt: skip
    assert not done.stderr, done.stderr
    return done.returncode, done.stdout.splitlines()


def test_a_manifest_names_its_commit_run_attempt_platform_python_and_lane(lanes: Lanes) -> None:
    fast = lanes.manifest(lanes.fast1)
    assert lanes.status["fast-1"] == 0
    assert {k: fast[k] for k in ("commit", "run_id", "run_attempt", "lane", "os", "arch")} == {
        "commit": lanes.head, "run_id": RUN_ID, "run_attempt": 1, "lane": "fast",
        "os": HOST.os, "arch": HOST.arch,
    }  # fmt: skip
    assert (
        fast["python"] == f"{platform.python_implementation().lower()}-{platform.python_version()}"
    )
    assert fast["platforms"] == {"test_suite.py::test_this_os_only": [HOST.os]}
    other = lanes.manifest(lanes.other_out)
    assert (other["commit"], other["run_attempt"]) == (OTHER_SHA, 1)  # GITHUB_SHA wins
    assert other["platforms"] == {"test_other.py::test_elsewhere": [ELSEWHERE]}


def test_two_lanes_prove_each_gated_test_and_gate_passed_on_a_lane(lanes: Lanes) -> None:
    assert lanes.status["slow-1"] == 0
    status, lines = verify("--lanes", str(lanes.fast1), str(lanes.slow1), cwd=lanes.suite)
    assert status == 0, lines
    assert lines[0] == f"ok   every manifest from commit {lanes.head[:12]} (git HEAD)"
    assert "ok   lane slow: every shard green" in lines
    assert lines[-2:] == [
        "ok   every platforms-gated test passed on a lane it names (1 test, 2 lanes)",
        "ok   every must-run test passed on a lane of its platform (1 pattern)",
    ]


def test_a_re_run_s_stale_green_is_left_out_and_the_newest_attempt_counts(lanes: Lanes) -> None:
    """The fast lane's first attempt was green, its re-run red: merged, the green one would
    have proved a run that failed. It is listed as left out, and the red one counts.

    Ablation: replace `[(m, top) for m in found[1:]]` with `[]` in
    `src/truegreen/core/evidence.py`; replace `found.sort(key=_attempt, reverse=True)` with
    `found.sort(key=_attempt)` in `src/truegreen/core/evidence.py`."""
    assert (lanes.status["fast-1"], lanes.status["fast-2"]) == (0, 1)  # premise: green, then red
    status, lines = verify("--lanes", str(lanes.out), "--commit", lanes.head, cwd=lanes.out)
    assert status == 1
    stale = lanes.fast1 / "shard-1-of-1.json"
    newest = lanes.fast2 / "shard-1-of-1.json"
    assert (
        "ok   only the newest attempt of each shard counted (3 manifests, 2 lanes): "
        "1 manifest from an earlier attempt, not counted"
    ) in lines
    assert (
        f"  {stale}: run_attempt: expected 2 (the newest of lane fast shard 1/1, in {newest}), "
        "found 1"
    ) in lines
    assert "FAIL lane fast: every shard green: shard 1 (exit status 1)" in lines


def test_manifests_of_another_commit_are_refused(lanes: Lanes) -> None:
    """Ablation: replace `not same_commit(m.commit, head.commit)` with `False` in
    `src/truegreen/core/evidence.py`."""
    assert verify("--lanes", str(lanes.fast1), str(lanes.slow1), cwd=lanes.suite)[0] == 0
    fast = lanes.fast1 / "shard-1-of-1.json"
    for args in (["--lanes", str(lanes.fast1), str(lanes.slow1)], [str(lanes.fast1)]):
        status, lines = verify(*args, cwd=lanes.out, GITHUB_SHA=OTHER_SHA)
        assert status == 1
        assert lines[0].startswith(
            f"FAIL every manifest from commit {OTHER_SHA[:12]} (GITHUB_SHA): "
        )
        expected = f"  {fast}: commit: expected {OTHER_SHA} (GITHUB_SHA), found {lanes.head}"
        assert expected in lines
    status, lines = verify(str(lanes.other_out), "--commit", lanes.head[:10], cwd=lanes.out)
    assert status == 1
    assert lines[0].startswith(f"FAIL every manifest from commit {lanes.head[:10]} (--commit)")


def test_a_platform_gated_test_that_passed_on_no_lane_is_listed(lanes: Lanes) -> None:
    """The other OS's test is skipped, green, on the one lane there is: nobody verified it.

    Ablation: replace `items.append(f"{nodeid} {marker.describe()}: {why}")` with `None` in
    `src/truegreen/core/evidence.py`."""
    assert lanes.status["other"] == 0  # premise: its lane is green
    status, lines = verify("--lanes", str(lanes.other_out), cwd=lanes.out, GITHUB_SHA=OTHER_SHA)
    assert status == 1
    assert lines[-3:-1] == [
        "FAIL every platforms-gated test passed on a lane it names (1 test, 1 lane): 1 test "
        "passed on no lane of its platform",
        f"  test_other.py::test_elsewhere platforms({ELSEWHERE!r}): no lane matches it (lanes: "
        f"fast ({HOST}))",
    ]


def test_a_must_run_gate_that_ran_on_no_lane_is_listed(lanes: Lanes) -> None:
    """The fast lane leaves its gate out (-m "not slow") and is green; without the slow lane,
    the gate ran nowhere.

    Ablation: replace `items.append(f"{nodeid}: {why}")` with `None` in
    `src/truegreen/core/evidence.py`."""
    assert lanes.status["fast-1"] == 0  # premise: the lane alone is green
    status, lines = verify("--lanes", str(lanes.fast1), cwd=lanes.suite)
    assert status == 1
    assert not any("lane fast: every must-run" in line for line in lines)  # not per lane
    assert lines[-2:] == [
        "FAIL every must-run test passed on a lane of its platform (1 pattern): 1 gate passed "
        "on no lane",
        "  test_suite.py::test_gate: not run on fast",
    ]
