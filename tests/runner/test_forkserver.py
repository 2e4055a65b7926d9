"""The fork server of truegreen run --isolate-files: each child is a fresh pytest process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from truegreen.cli import main
from truegreen.guards.children import SHIM_DIR
from truegreen.runner.forkclient import ForkServer
from truegreen.runner.forkserver import available, refusal, server_options
from truegreen.runner.procs import sealed_environment, wait_until

pytestmark = pytest.mark.skipif(not available(), reason="no fork on this platform")

FRESH_PROCESS = """
import os
import signal
import sys


def test_it_looks_like_python_m_pytest():
    main = sys.modules["__main__"]
    assert main.__spec__.name == "pytest.__main__"
    assert sys.argv[0] == main.__file__
    assert sys.argv[1:] == ["-q", "-p", "no:cacheprovider", "test_fresh.py"]
    assert os.getsid(0) == os.getpid()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.getsignal(signal.SIGCHLD) == signal.SIG_DFL
    assert os.path.samestat(os.fstat(0), os.stat(os.devnull))
    assert sys.path[0] == os.getcwd()
    loader = sys.modules["truegreen.plugin"].__loader__
    assert type(loader).__name__ == "AssertionRewritingHook"
"""


@pytest.fixture
def run_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """``main(["run", ...])`` in this process, which must not become a child subreaper: the
    orphans of every later test would be reparented to it and never reaped."""
    monkeypatch.setattr("truegreen.runner.procs.become_subreaper", lambda: False)


def server_environment(home: Path, *path: Path) -> dict[str, str]:
    """The sealed environment, with what an ablation needs to reach the server: its mutant
    and the child shim that serves it."""
    env = sealed_environment(os.environ, str(home), ["_TRUEGREEN_MUTANT"])
    env["PYTHONPATH"] = os.pathsep.join([SHIM_DIR, *map(str, path)])
    return env


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ForkServer]:
    started = ForkServer.start(server_environment(tmp_path / "home"), ["-p", "no:cacheprovider"])
    yield started
    started.close()


def test_it_reads_the_plugins_that_p_no_turns_off() -> None:
    actual = server_options(["-p", "no:cacheprovider", "-pno:randomly", "-p", "xdist", "-q"])
    expected = {"skip": ["cacheprovider", "randomly"], "autoload": True}
    assert actual == expected


def test_it_reads_that_autoloading_is_off() -> None:
    actual = server_options(["--disable-plugin-autoload", "-p", "xdist"])
    expected = {"skip": [], "autoload": False}
    assert actual == expected


def test_it_refuses_to_fork_with_a_second_thread() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        reason = refusal()
    finally:
        stop.set()
        thread.join()
    assert reason is not None
    assert reason.startswith("a plugin started a thread at import")


def test_a_child_is_a_fresh_pytest_process_in_a_session_of_its_own(
    tmp_path: Path, server: ForkServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "test_fresh.py").write_text(FRESH_PROCESS)
    monkeypatch.chdir(tmp_path)
    output = tmp_path / "fresh.out"
    child = server.spawn(["-q", "-p", "no:cacheprovider", "test_fresh.py"], str(output))
    status, timed_out = wait_until(child, None, everything=False)
    assert (status, timed_out) == (0, False), output.read_text()
    assert child.pid not in (os.getpid(), server.process.pid)
    assert "1 passed" in output.read_text()


def test_module_state_of_one_child_does_not_reach_the_next(
    tmp_path: Path, server: ForkServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "test_sets.py").write_text(
        "import json\n\ndef test_sets():\n    json.MARK = 1\n    assert json.MARK\n"
    )
    (tmp_path / "test_reads.py").write_text(
        "import json\n\ndef test_reads():\n    assert not hasattr(json, 'MARK')\n"
    )
    monkeypatch.chdir(tmp_path)
    statuses = []
    for name in ("test_sets.py", "test_reads.py"):
        child = server.spawn(["-q", "-p", "no:cacheprovider", name], str(tmp_path / "out"))
        statuses.append(wait_until(child, None, everything=False))
    assert statuses == [(0, False), (0, False)], (tmp_path / "out").read_text()


def _server_with_site(tmp_path: Path, site: str) -> tuple[ForkServer, Path]:
    """A server whose interpreter runs ``site`` at start-up, as a sitecustomize."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(site)
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n")
    env = server_environment(tmp_path / "home", tmp_path / "site")
    return ForkServer.start(env, []), tmp_path / "test_one.py"


def test_the_server_s_atexit_handlers_and_buffers_stay_the_server_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Ablation: delete `atexit._clear()` in `src/truegreen/runner/forkserver.py`.
    Ablation: delete `sys.stderr.flush()` in `src/truegreen/runner/forkserver.py`."""
    marker = tmp_path / "atexit.log"
    site = (
        "import atexit, os, sys\n"
        f"atexit.register(lambda: open({str(marker)!r}, 'a').write(f'{{os.getpid()}}\\n'))\n"
        "sys.stderr.write('half a line from the server')\n"
    )
    server, test_file = _server_with_site(tmp_path, site)
    monkeypatch.chdir(tmp_path)
    output = tmp_path / "child.out"
    child = server.spawn(["-q", "-p", "no:cacheprovider", test_file.name], str(output))
    status, _ = wait_until(child, None, everything=False)
    server.close()
    assert status == 0, output.read_text()
    assert "half a line from the server" in capfd.readouterr().err  # premise: it was buffered
    assert marker.read_text().split() == [str(server.process.pid)]  # premise: it ran, once
    assert "half a line from the server" not in output.read_text()


@pytest.mark.usefixtures("run_in_process")
def test_a_server_that_started_a_thread_refuses_and_the_run_starts_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    site = (
        "import threading, time\n"
        "threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
    )
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(site)
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "site"))
    monkeypatch.chdir(tmp_path)
    status = main(["run", "--keep-env", "PYTHONPATH", "--isolate-files", "-j", "1", "--",
                   "-q", "-p", "no:cacheprovider"])  # fmt: skip
    captured = capsys.readouterr()
    assert status == 0, captured.out
    refused = "no fork server (a plugin started a thread at import (2 threads)); a new process"
    assert f"truegreen run: {refused} per file\n" in captured.err
    assert captured.out.strip().splitlines()[-1].startswith("1 passed in ")


PARENT = """
import os
from pathlib import Path


def test_parent():
    Path(os.environ["PARENT_LOG"], os.path.basename(__file__)).write_text(str(os.getppid()))
"""


@pytest.mark.parametrize(
    ("flags", "can_fork", "forked"),
    [([], True, True), (["--no-fork-server"], True, False), ([], False, False)],
    ids=["forked", "asked-not-to", "no-fork-on-this-platform"],
)
@pytest.mark.usefixtures("run_in_process")
def test_files_are_forked_by_the_server_unless_asked_or_unable(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    flags: list[str],
    can_fork: bool,
    forked: bool,
) -> None:
    project, log = tmp_path / "project", tmp_path / "log"
    project.mkdir()
    log.mkdir()
    for name in ("test_a.py", "test_b.py"):
        (project / name).write_text(PARENT)
    monkeypatch.setattr("truegreen.runner.forkserver.available", lambda: can_fork)
    monkeypatch.setenv("PARENT_LOG", str(log))
    monkeypatch.chdir(project)
    status = main(["run", "--keep-env", "PARENT_LOG", "--isolate-files", "-j", "2", *flags,
                   "--", "-q", "-p", "no:cacheprovider"])  # fmt: skip
    assert status == 0
    parents = {int(p.read_text()) for p in log.iterdir()}
    assert len(list(log.iterdir())) == 2
    assert (os.getpid() not in parents) == forked
    assert len(parents) == 1  # one server forked both, or this process started both


def test_guards_and_metrics_work_in_every_forked_child(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for name in ("test_a.py", "test_b.py"):
        (project / name).write_text(
            "from pathlib import Path\n\n"
            "def test_writes_into_the_project():\n"
            "    Path(__file__).with_suffix('.written').write_text('x')\n\n"
            "def test_passes():\n    pass\n"
        )
    done = subprocess.run([sys.executable, "-m", "truegreen", "run", "--metrics", "metrics",
                           "--isolate-files", "-j", "2", "--", "-q", "-p", "no:cacheprovider"],
                          cwd=project, capture_output=True, text=True, check=False)  # fmt: skip
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("2 passed, 2 failed in "), done.stdout + done.stderr
    assert done.returncode == 1
    streams = sorted((project / "metrics").glob("*/session-*.jsonl"))
    assert len(streams) == 2
    starts = [
        json.loads(line)["test"]
        for stream in streams
        for line in stream.read_text().splitlines()
        if '"test_start"' in line
    ]
    assert sorted(starts) == [
        "test_a.py::test_passes",
        "test_a.py::test_writes_into_the_project",
        "test_b.py::test_passes",
        "test_b.py::test_writes_into_the_project",
    ]


@pytest.mark.parametrize("flags", [[], ["--no-fork-server"]], ids=["forked", "new-processes"])
def test_the_deadline_ends_each_file_s_tree_with_124_and_names_the_running_test(
    tmp_path: Path, flags: list[str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    pid_file = tmp_path / "grandchild.pid"
    (project / "test_quick.py").write_text("def test_quick():\n    pass\n")
    (project / "test_hang.py").write_text(
        "import subprocess, time\n\n"
        "def test_hang():\n"
        "    child = subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
        f"    open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "    time.sleep(300)\n"
    )
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "truegreen", "run", "--deadline", "6",
                           "--isolate-files", "-j", "2", *flags, "--", "-q",
                           "-p", "no:cacheprovider"],
                          cwd=project, capture_output=True, text=True, check=False)  # fmt: skip
    elapsed = time.monotonic() - start
    assert done.returncode == 124, done.stdout + done.stderr
    assert elapsed < 6 + 3 + 4  # the deadline, the grace period, and start-up
    assert "TIMED OUT test_hang.py: ended, not retried" in done.stdout
    assert "was running: test_hang.py::test_hang" in done.stderr
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)  # left the process group, and still did not survive


def test_a_server_that_dies_before_it_is_ready_says_so(tmp_path: Path) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text("import os\nos._exit(3)\n")
    env = server_environment(tmp_path / "home", tmp_path / "site")
    with pytest.raises(RuntimeError, match=r"^it ended before it was ready$"):
        ForkServer.start(env, [])
