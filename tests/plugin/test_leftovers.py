"""Leftover processes, end to end: a child a test left running is named after the test, with
its command, its pid and the test; it is stopped at the session's end at the latest."""

from __future__ import annotations

import os
import re
import signal
import sys

import pytest

from tests.plugin.test_xdist_summaries import sections

RUN = ("--truegreen-tree-guard=off", "-p", "no:randomly", "-p", "no:cacheprovider")
SECTION = "truegreen leftover processes"
SLEEPER = "import time; time.sleep(60)"

LEAVES = f"""
import subprocess
import sys

def test_leaves_a_child():
    subprocess.Popen([sys.executable, "-c", {SLEEPER!r}])

def test_waits_for_its_child():
    subprocess.run([sys.executable, "-c", "pass"], check=True)
"""

POSIX = pytest.mark.platforms("posix")  # the pid checks: os.kill(pid, 0), /proc


def pids(text: str) -> list[int]:
    """The pids the leftover section names."""
    return [int(p) for p in re.findall(r"^    pid (\d+): ", text, re.MULTILINE)]


def gone(pid: int) -> bool:
    """Whether no process runs with this pid any more (an unreaped zombie counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


@pytest.fixture
def killed_afterwards() -> object:
    """The pids a test saw running, killed after it whatever it found (an ablated run
    leaves its sleepers behind)."""
    seen: list[int] = []
    yield seen
    for pid in seen:
        if not gone(pid):
            os.kill(pid, signal.SIGKILL)


@POSIX
def test_a_child_left_running_is_named_with_its_test_and_killed_at_the_sessions_end(
    pytester: pytest.Pytester, killed_afterwards: list[int]
) -> None:
    """Ablation: replace `stop([*running, *wider])` with `None` in
    `src/truegreen/guards/leftovers.py`: the child runs on after the session."""
    pytester.makepyfile(test_children=LEAVES)
    result = pytester.runpytest_subprocess(*RUN)
    result.assert_outcomes(passed=2)  # warn, the default: the test passes
    found = sections(result.stdout.lines)[SECTION]
    killed_afterwards.extend(pids("\n".join(found)))
    assert len(killed_afterwards) == 1
    pid = killed_afterwards[0]
    assert found == [
        "child processes left running (1 process):",
        "  test_children.py::test_leaves_a_child",
        f"    pid {pid}: {sys.executable} -c '{SLEEPER}' (killed at the session's end)",
        'leftover-processes = "warn": the run does not fail for them',
    ]
    assert gone(pid)


@POSIX
def test_a_test_that_waits_for_its_child_leaves_nothing(pytester: pytest.Pytester) -> None:
    """Ablation: replace `popen.poll() is None` with `True` in
    `src/truegreen/guards/leftovers.py`: the waited-for child is reported."""
    pytester.makepyfile(
        """
        import subprocess
        import sys

        def test_waits_for_its_child():
            subprocess.run([sys.executable, "-c", "pass"], check=True)

        def test_kills_and_waits():
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            child.kill()
            child.wait()

        def test_kills_without_waiting():
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]).kill()
        """
    )
    result = pytester.runpytest_subprocess(*RUN, "--truegreen-set", "leftover-processes=fail")
    result.assert_outcomes(passed=3)
    found = sections(result.stdout.lines)
    assert "test_kills_without_waiting: python" in "\n".join(found["truegreen guards"])  # premise
    assert SECTION not in found


SESSION_SERVER = f"""
import subprocess
import sys

import pytest

@pytest.fixture(scope="session")
def server():
    child = subprocess.Popen([sys.executable, "-c", {SLEEPER!r}])
    yield child
    child.terminate()

def test_uses_the_server(server):
    assert server.poll() is None

def test_after_it(server):
    assert server.poll() is None
"""


@POSIX
def test_a_session_fixtures_process_is_not_the_tests_leftover(pytester: pytest.Pytester) -> None:
    """The server a session fixture started runs on after the test that set it up: it is the
    fixture's, and the fixture stops it.

    Ablation: replace `(self.wider if child.wider else self.pending).append(child)` with
    `self.pending.append(child)` in `src/truegreen/guards/leftovers.py`: the first test fails
    for the server its setup started."""
    pytester.makepyfile(SESSION_SERVER)
    result = pytester.runpytest_subprocess(*RUN, "--truegreen-set", "leftover-processes=fail")
    result.assert_outcomes(passed=2)  # premise in the tests: the server ran through both
    assert "test_uses_the_server: python" in result.stdout.str()
    assert SECTION not in sections(result.stdout.lines)


@POSIX
def test_a_wider_fixture_that_forgets_its_process_is_named_at_the_sessions_end(
    pytester: pytest.Pytester, killed_afterwards: list[int]
) -> None:
    pytester.makepyfile(SESSION_SERVER.replace("    child.terminate()\n", ""))
    result = pytester.runpytest_subprocess(*RUN)
    result.assert_outcomes(passed=2)
    found = sections(result.stdout.lines)[SECTION]
    killed_afterwards.extend(pids("\n".join(found)))
    assert found[1:3] == [
        "  session fixture 'server' (set up for test_a_wider_fixture_that_forgets_its_process"
        "_is_named_at_the_sessions_end.py::test_uses_the_server)",
        f"    pid {killed_afterwards[0]}: {sys.executable} -c '{SLEEPER}' "
        "(killed at the session's end)",
    ]
    assert gone(killed_afterwards[0])


@POSIX
def test_kill_mode_kills_the_child_right_after_its_test(pytester: pytest.Pytester) -> None:
    """Ablation: replace `stop(left)` with `None` in `src/truegreen/plugin/leftovers.py`: the
    next test finds the child still running."""
    pytester.makepyfile(
        f"""
        import os
        import subprocess
        import sys

        started = []

        def test_leaves_a_child():
            started.append(subprocess.Popen([sys.executable, "-c", {SLEEPER!r}]).pid)

        def test_the_child_is_gone():
            os.kill(started[0], 0)  # premise: there was one; ProcessLookupError if reaped
        """
    )
    result = pytester.runpytest_subprocess(*RUN, "--truegreen-set", "leftover-processes=kill")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*ProcessLookupError*", "*(killed after the test)"])


@POSIX
def test_fail_mode_fails_the_test_that_left_a_child(pytester: pytest.Pytester) -> None:
    """Ablation: replace `self.mode == "fail" and report.passed` with `False` in
    `src/truegreen/plugin/leftovers.py`: the test passes."""
    pytester.makepyfile(test_children=LEAVES)
    result = pytester.runpytest_subprocess(*RUN, "--truegreen-set", "leftover-processes=fail")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_leaves_a_child*",
            "truegreen: this test left 1 child process running:",
            f"  pid *: {sys.executable} -c '{SLEEPER}'",
        ]
    )


@POSIX
def test_under_xdist_each_worker_stops_its_own_and_the_controller_lists_them(
    pytester: pytest.Pytester, killed_afterwards: list[int]
) -> None:
    """Ablation: replace `self.relay.ship("leftovers", self.rows)` with `None` in
    `src/truegreen/plugin/leftovers.py`: the controller lists nothing."""
    pytest.importorskip("xdist")
    pytester.makepyfile(test_first=LEAVES, test_second=LEAVES)
    result = pytester.runpytest_subprocess(*RUN, "-p", "xdist", "-n", "2")
    result.assert_outcomes(passed=4)
    assert "created: 2/2 workers" in result.stdout.str()  # premise: two workers ran them
    found = sections(result.stdout.lines)[SECTION]
    killed_afterwards.extend(pids("\n".join(found)))
    assert found[:2] == [
        "child processes left running (2 processes):",
        "  test_first.py::test_leaves_a_child",
    ]
    assert found[3] == "  test_second.py::test_leaves_a_child"
    assert len(killed_afterwards) == 2
    assert all(gone(pid) for pid in killed_afterwards)


@pytest.mark.platforms("linux")  # a pid-only child is told apart through /proc
def test_children_started_by_pid_are_named_too(
    pytester: pytest.Pytester, killed_afterwards: list[int]
) -> None:
    """os.posix_spawn and os.spawn* return a pid the audit hook never sees.

    Ablation: replace `guard.on_spawn(guard.test, guard.where, _words(argv))` with `None` in
    `src/truegreen/guards/spawns.py`: the posix_spawn child is not named. Ablation: replace
    `frame.f_code.co_name == "_spawnvef"` with `False` in `src/truegreen/guards/spawns.py`:
    the os.spawnv child is not named. Ablation: replace
    `os.waitpid(self.pid or -1, os.WNOHANG)[0] == 0` with `True` in
    `src/truegreen/guards/leftovers.py`: the child that ended on its own is named too."""
    pytester.makepyfile(
        test_pids=f"""
        import os
        import sys
        import time

        SLEEPER = [sys.executable, "-c", {SLEEPER!r}]

        def test_posix_spawn_leaves():
            os.posix_spawn(sys.executable, SLEEPER, os.environ)

        def test_posix_spawn_waits():
            pid = os.posix_spawn(sys.executable, [sys.executable, "-c", "pass"], os.environ)
            assert os.waitpid(pid, 0)[0] == pid

        def test_posix_spawn_ends_on_its_own():
            pid = os.posix_spawn(sys.executable, [sys.executable, "-c", "pass"], os.environ)
            for _ in range(1000):  # ended, not reaped: a zombie, still this process's child
                with open(f"/proc/{{pid}}/stat") as handle:
                    if handle.read().rsplit(")", 1)[1].split()[0] == "Z":
                        break
                time.sleep(0.01)
            else:
                raise AssertionError("the child did not end")

        def test_spawnv_leaves():
            os.spawnv(os.P_NOWAIT, sys.executable, SLEEPER)

        def test_spawnv_waits():
            assert os.spawnv(os.P_WAIT, sys.executable, [sys.executable, "-c", "pass"]) == 0
        """
    )
    result = pytester.runpytest_subprocess(*RUN)
    result.assert_outcomes(passed=5)
    found = sections(result.stdout.lines)[SECTION]
    killed_afterwards.extend(pids("\n".join(found)))
    assert len(killed_afterwards) == 2
    assert found == [
        "child processes left running (2 processes):",
        "  test_pids.py::test_posix_spawn_leaves",
        f"    pid {killed_afterwards[0]}: {sys.executable} -c '{SLEEPER}' "
        "(killed at the session's end)",
        "  test_pids.py::test_spawnv_leaves",
        f"    pid {killed_afterwards[1]}: {sys.executable} -c '{SLEEPER}' "
        "(killed at the session's end)",
        'leftover-processes = "warn": the run does not fail for them',
    ]
    assert all(gone(pid) for pid in killed_afterwards)
