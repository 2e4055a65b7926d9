"""truegreen run leaves nothing behind: every process the run started ends with it, and the
orphans it adopts are collected while it lasts (Linux: a child subreaper and ``/proc``)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.conftest import marked

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc, subreaper")


def truegreen_run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "truegreen", "run", *args], cwd=cwd,
                          capture_output=True, text=True, check=False)  # fmt: skip


# A test that starts three processes in sessions of their own and orphans them (a double
# fork), each recording its pid, and ends; its file's session ends with it.
SPAWNS = """\
import os, subprocess, sys

SLEEPER = (
    "import os, sys, time\\nif os.fork() == 0:\\n"
    "    open(sys.argv[1], 'a').write(f'{{os.getpid()}}\\\\n')\\n    time.sleep(300)\\n"
)


def test_spawns():
    for _ in range(3):
        subprocess.run([sys.executable, "-c", SLEEPER, {pids!r}, {marker!r}], check=True,
                       start_new_session=True)
    open({session!r}, "w").write(str(os.getpid()))
"""

# A test in another file that waits until the first file's session has ended, records which
# of its orphans are still alive, then hangs until the deadline.
HANGS = """\
import os, time
from pathlib import Path


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_hangs():
    ends = time.monotonic() + 60
    while time.monotonic() < ends:
        session = Path({session!r})
        pids = Path({pids!r})
        if session.exists() and pids.exists() and len(pids.read_text().split()) == 3:
            if not alive(int(session.read_text())):
                break
        time.sleep(0.05)
    survivors = [int(p) for p in Path({pids!r}).read_text().split() if alive(int(p))]
    Path({survivors!r}).write_text(" ".join(map(str, survivors)))
    time.sleep(300)
"""


@pytest.mark.parametrize("flags", [[], ["--no-fork-server"]], ids=["forked", "new-processes"])
def test_the_deadline_ends_what_a_finished_file_left_running(
    tmp_path: Path, marker: str, flags: list[str]
) -> None:
    """Orphans of a file whose session had already ended are ended at the deadline too.

    Ablation: replace `end_all()` with `0` in `src/truegreen/runner/procs.py`."""
    project = tmp_path / "project"
    project.mkdir()
    notes = {"pids": str(tmp_path / "pids"), "session": str(tmp_path / "session"),
             "survivors": str(tmp_path / "survivors"), "marker": marker}  # fmt: skip
    (project / "test_a.py").write_text(SPAWNS.format(**notes))
    (project / "test_b.py").write_text(HANGS.format(**notes))
    (project / "pyproject.toml").write_text(f'[tool.truegreen]\nallow-writes = ["{tmp_path}"]\n')
    done = truegreen_run(project, "--isolate-files", "-j", "2", "--deadline", "15", *flags,
                         "--", "-q", "-p", "no:cacheprovider", "-p", "no:randomly")  # fmt: skip
    assert done.returncode == 124, done.stdout + done.stderr
    survivors = (tmp_path / "survivors").read_text().split()
    assert len(survivors) == 3  # premise: the orphans outlived the session that started them
    assert marked(marker) == [], done.stderr
    assert "truegreen run: ended 3 processes the tests left running" in done.stderr


def test_the_end_of_a_run_ends_what_its_tests_left_running(tmp_path: Path, marker: str) -> None:
    """Not only a deadline: a run that ends by itself leaves no process of its tree behind.

    Ablation: replace `end_all()` with `0` in `src/truegreen/runner/procs.py`."""
    project = tmp_path / "project"
    project.mkdir()
    notes = {"pids": str(tmp_path / "pids"), "session": str(tmp_path / "session"),
             "marker": marker}  # fmt: skip
    (project / "test_a.py").write_text(SPAWNS.format(**notes))
    (project / "pyproject.toml").write_text(f'[tool.truegreen]\nallow-writes = ["{tmp_path}"]\n')
    done = truegreen_run(project, "--", "-q", "-p", "no:cacheprovider", "-p", "no:randomly")
    assert done.returncode == 0, done.stdout + done.stderr
    assert len((tmp_path / "pids").read_text().split()) == 3  # premise: they were started
    assert marked(marker) == [], done.stderr
    assert "truegreen run: ended 3 processes the tests left running" in done.stderr


# A test that orphans many short-lived processes (each a grandchild whose parent exits
# first, so it comes back to the subreaper and exits there) and samples, as it goes, the
# zombies whose parent is the runner; one grandchild records who adopted it.
FORKS = """\
import json, os, time


def zombies_of(parent):
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = open(f"/proc/{{entry}}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            count += fields[0] == "Z" and int(fields[1]) == parent
    return count


def test_forks():
    runner = os.getppid()
    peak = 0
    for i in range({n}):
        child = os.fork()
        if child == 0:
            if os.fork() == 0:
                if i == 0:
                    while os.getppid() != runner:  # its parent has exited: who adopted it?
                        time.sleep(0.01)
                    open({adopter!r}, "w").write(str(os.getppid()))
                os._exit(0)
            os._exit(0)
        os.waitpid(child, 0)
        if i % 20 == 0:
            peak = max(peak, zombies_of(runner))
        time.sleep(0.002)
    ends = time.monotonic() + 5
    while zombies_of(runner) and time.monotonic() < ends:
        time.sleep(0.05)
    result = {{"runner": runner, "peak": peak, "last": zombies_of(runner)}}
    open({result!r}, "w").write(json.dumps(result))
"""


def test_orphans_are_collected_while_the_run_lasts(tmp_path: Path) -> None:
    """A test that orphans 250 processes leaves no zombie of them behind for long.

    Ablation: replace `self._thread.start()` with `pass` in `src/truegreen/runner/procs.py`."""
    project = tmp_path / "project"
    project.mkdir()
    notes = {"n": 250, "adopter": str(tmp_path / "adopter"), "result": str(tmp_path / "result")}
    (project / "test_forks.py").write_text(FORKS.format(**notes))
    (project / "pyproject.toml").write_text(f'[tool.truegreen]\nallow-writes = ["{tmp_path}"]\n')
    start = time.monotonic()
    done = truegreen_run(project, "--", "-q", "-p", "no:cacheprovider", "-p", "no:randomly")
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads((tmp_path / "result").read_text())
    # premise: the orphans came back to the runner (pytest's parent), not to init
    assert int((tmp_path / "adopter").read_text()) == result["runner"]
    assert result["last"] == 0, result
    assert result["peak"] < 50, result
    assert time.monotonic() - start < 60


# A test that starts a process in a session of its own (out of reach of its process group),
# records both pids, and hangs.
HANGS_WITH_CHILD = """\
import os, subprocess, sys, time


def test_hangs():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", {marker!r}],
                             start_new_session=True)
    open({pids!r}, "w").write(f"{{os.getpid()}} {{child.pid}}")
    time.sleep(300)
"""


def test_a_sigterm_ends_the_whole_run(tmp_path: Path, marker: str) -> None:
    """A ``truegreen run`` ended by SIGTERM (a CI job cancelled) ends pytest and every process
    its tests started, removes its session home, and exits 143.

    Ablation: replace `signal.signal(signal.SIGTERM, _terminate)` with
    `signal.getsignal(signal.SIGTERM)` in `src/truegreen/cli/signals.py`."""
    project = tmp_path / f"project-{marker}"
    project.mkdir()
    pids = tmp_path / "pids"
    (project / "test_hang.py").write_text(HANGS_WITH_CHILD.format(marker=marker, pids=str(pids)))
    (project / "pyproject.toml").write_text(f'[tool.truegreen]\nallow-writes = ["{tmp_path}"]\n')
    temp = tmp_path / "temp"
    temp.mkdir()
    out = tmp_path / "out"  # a file, not a pipe: the test's own processes hold it open too
    with out.open("w") as sink:
        runner = subprocess.Popen(
            [sys.executable, "-m", "truegreen", "run", "--", "-q", "-p", "no:cacheprovider",
             "-p", "no:randomly"],
            cwd=project, env={**os.environ, "TMPDIR": str(temp)}, stdout=sink, stderr=sink,
        )  # fmt: skip
    try:
        ends = time.monotonic() + 60
        while not (pids.exists() and len(pids.read_text().split()) == 2):
            assert runner.poll() is None, out.read_text()
            assert time.monotonic() < ends, out.read_text()
            time.sleep(0.05)
        started = [int(p) for p in pids.read_text().split()]
        assert sorted(started) == sorted([*marked(marker), started[0]])  # premise: both live
        assert any(temp.glob("truegreen-run-home-*"))  # premise: the run's home exists
        runner.send_signal(signal.SIGTERM)
        runner.wait(timeout=60)
    finally:
        if runner.poll() is None:
            runner.kill()
    said = out.read_text()
    assert runner.returncode == 143, said
    assert "truegreen run: terminated" in said
    assert marked(marker) == [], said
    assert not [p for p in started if Path(f"/proc/{p}").exists()], said
    assert not any(temp.glob("truegreen-run-home-*")), said


# A test that lists the temporary directory the run was given (its session's folder is
# there) and hangs until the deadline.
LISTS_AND_HANGS = """\
import os, time


def test_hangs():
    names = [n for n in os.listdir({temp!r}) if n.startswith("truegreen-session-")]
    open({seen!r}, "w").write(" ".join(names))
    time.sleep(300)
"""


def test_a_deadline_leaves_no_session_folder_behind(tmp_path: Path) -> None:
    """pytest ended at the deadline cannot remove its session home; the runner does, and
    only folders of processes that are gone (a live pytest's folder stays).

    Ablation: replace `sweep(SESSION_DIR_PREFIX)` with `None` in `src/truegreen/cli/run.py`."""
    project = tmp_path / "project"
    project.mkdir()
    temp = tmp_path / "temp"
    temp.mkdir()
    live = temp / f"truegreen-session-{os.getpid()}-abc"  # this process's: alive
    live.mkdir()
    seen = tmp_path / "seen"
    (project / "test_hang.py").write_text(LISTS_AND_HANGS.format(temp=str(temp), seen=str(seen)))
    (project / "pyproject.toml").write_text(f'[tool.truegreen]\nallow-writes = ["{tmp_path}"]\n')
    done = subprocess.run(
        [sys.executable, "-m", "truegreen", "run", "--deadline", "8", "--", "-q",
         "-p", "no:cacheprovider", "-p", "no:randomly"],
        cwd=project, env={**os.environ, "TMPDIR": str(temp)}, capture_output=True, text=True,
        check=False,
    )  # fmt: skip
    assert done.returncode == 124, done.stdout + done.stderr
    pytests = [n for n in seen.read_text().split() if n != live.name]
    assert len(pytests) == 1, pytests  # premise: the pytest the deadline ended had one
    assert sorted(p.name for p in temp.glob("truegreen-session-*")) == [live.name]
