"""Attribution of what a process does when it outlives the test that started it: a fork
server, a helper a session fixture started. What it does counts against the test running."""

from __future__ import annotations

import pytest

NO_TREE_GUARD = ("--truegreen-tree-guard=off", "-p", "no:randomly")

FORK_SERVER = """
import multiprocessing
from pathlib import Path

CTX = multiprocessing.get_context("forkserver")


def nothing():
    pass


def write(path):
    Path(path).write_text("from a forked worker")


def test_starts_the_server():
    worker = CTX.Process(target=nothing)
    worker.start()
    worker.join()
    assert worker.exitcode == 0


def test_dials_out_through_it():
    target = Path(__file__).parent / "worker.txt"
    worker = CTX.Process(target=write, args=(str(target),))
    worker.start()
    worker.join()
    assert worker.exitcode == 0 and target.exists()  # premise: the worker wrote
"""


def failures_of(out: str) -> dict[str, str]:
    """Each failing test's section of the FAILURES block, by test name."""
    block = out.split("= FAILURES =")[1].split(" truegreen guards ")[0]
    sections = {}
    for part in block.split("\n_")[1:]:
        name = part.strip("_ ").split(" ", 1)[0]
        sections[name] = part
    return sections


@pytest.mark.platforms("posix")  # the forkserver start method
def test_a_fork_servers_worker_counts_against_the_test_that_asked_for_it(
    pytester: pytest.Pytester,
) -> None:
    """The server was started by the first test; its worker writes during the second.

    Ablation: replace `self.publisher.publish(nodeid)` with `None` in
    `src/truegreen/plugin/guards.py`."""
    pytester.makepyfile(test_server=FORK_SERVER)
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD)
    result.assert_outcomes(passed=1, failed=1)
    failures = failures_of(result.stdout.str())
    assert list(failures) == ["test_dials_out_through_it"]
    assert "write: did open for writing" in failures["test_dials_out_through_it"]
    assert "worker.txt" in failures["test_dials_out_through_it"]


HELPER = """
import subprocess
import sys
from pathlib import Path

import pytest

SERVE = '''
import sys
for line in sys.stdin:
    open(line.strip(), "w").write("from the helper")
    print("done", flush=True)
'''


@pytest.fixture(scope="session")
def helper():
    process = subprocess.Popen([sys.executable, "-c", SERVE], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    yield process
    process.stdin.close()
    process.wait()


def test_starts_the_helper(helper):
    assert helper.poll() is None


def ask(helper, name):
    target = Path(__file__).parent / name
    helper.stdin.write(f"{target}\\n")
    helper.stdin.flush()
    assert helper.stdout.readline() == "done\\n"
    assert target.exists()  # premise: the helper wrote


def test_asks_the_helper_to_write(helper):
    ask(helper, "helper.txt")


def test_asks_the_helper_again(helper):
    ask(helper, "again.txt")
"""


def test_a_session_helper_acting_for_a_later_test_counts_against_that_test(
    pytester: pytest.Pytester,
) -> None:
    """The helper was started in the first test's setup; it writes while the second runs, and
    the report says which test started it.

    Ablations: replace `self.publisher.publish(nodeid)` with `None` in
    `src/truegreen/plugin/guards.py`; replace `os.utime(self.policy.run_dir)` with `None` in
    `src/truegreen/guards/runtime.py` (the helper's second record, appended to its stream, is
    read only at the session's end)."""
    pytester.makepyfile(test_helper=HELPER)
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD)
    result.assert_outcomes(passed=1, failed=2)
    failures = failures_of(result.stdout.str())
    assert list(failures) == ["test_asks_the_helper_to_write", "test_asks_the_helper_again"]
    assert "again.txt" in failures["test_asks_the_helper_again"]
    section = failures["test_asks_the_helper_to_write"]
    assert f"write: did open for writing {pytester.path}/helper.txt (under" in section
    assert (
        "[test_helper.py::test_asks_the_helper_to_write, in a process "
        "test_helper.py::test_starts_the_helper started]"
    ) in section
