"""A killed ``truegreen ablate`` ends its pytest runs and leaves no temporary folder behind;
after a ``kill -9`` the next start sweeps what it left. The user's file is never touched."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.conftest import marked

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc, pdeathsig")

GATE = "def allowed(n):\n    return n < 3\n"

# With the gate gone the test starts a process of its own (in a session of its own) and
# hangs: the ablated run is in flight until something ends it.
TEST = """\
import subprocess, sys, time

from app.gate import allowed


def test_big_is_refused():
    \"\"\"Ablation: replace `n < 3` with `True` in `app/gate.py`.\"\"\"
    if allowed(5):
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", {sleeper!r}],
                         start_new_session=True)
        open({started!r}, "w").write("started")
        time.sleep(300)
    assert not allowed(5)
"""


def _project(tmp_path: Path, marker: str) -> tuple[Path, Path, dict[str, str]]:
    project = tmp_path / marker
    (project / "app").mkdir(parents=True)
    (project / "tests").mkdir()
    (project / "app" / "__init__.py").write_text("")
    (project / "app" / "gate.py").write_text(GATE)
    started = tmp_path / "started"
    test = TEST.format(sleeper=f"sleeper-{marker}", started=str(started))
    (project / "tests" / f"test_{marker}.py").write_text(test)
    (project / "pyproject.toml").write_text(
        f'[tool.truegreen]\nallow-writes = ["{tmp_path}"]\n'
        '[tool.pytest.ini_options]\npythonpath = ["."]\n'
    )
    temp = tmp_path / "temp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp)}
    return project, started, env


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _ablate(project: Path, env: dict[str, str], *flags: str) -> subprocess.Popen[bytes]:
    """The verb, its output in a file beside the project (a pipe would be held open by
    whatever of its tree survives it). Ctrl-C has its default action, as at a terminal,
    whatever this suite inherited (a shell without job control starts a command run with `&`
    with SIGINT ignored, and children inherit that)."""
    with open(project.parent / "output", "wb") as output:
        return subprocess.Popen(
            [sys.executable, "-m", "truegreen", "ablate", "--records", "tests", "-j", "1",
             "--run-timeout", "120", *flags],
            cwd=project, env=env, stdout=output, stderr=subprocess.STDOUT,
            preexec_fn=_default_sigint,
        )  # fmt: skip


def _said(tmp_path: Path) -> str:
    return (tmp_path / "output").read_text(errors="replace")


def _wait_for(path: Path, verb: subprocess.Popen[bytes], seconds: float = 90) -> None:
    ends = time.monotonic() + seconds
    while not path.exists():
        assert verb.poll() is None, _said(path.parent)
        assert time.monotonic() < ends, "the ablated run never started"
        time.sleep(0.1)


def _gone(marker: str, seconds: float = 10, but: str = "") -> list[int]:
    """The processes carrying ``marker`` (not ``but`` too) once they had ``seconds`` to go."""

    def left() -> list[int]:
        return [pid for pid in marked(marker) if not but or but.encode() not in _argv(pid)]

    ends = time.monotonic() + seconds
    while left() and time.monotonic() < ends:
        time.sleep(0.1)
    return left()


def _ours(temp: Path) -> list[str]:
    return sorted(p.name for p in temp.iterdir() if p.name.startswith("truegreen-ablate-"))


@pytest.mark.parametrize("flags", [["--warm"], ["--no-warm"]], ids=["warm", "cold"])
def test_sigterm_ends_the_runs_in_flight_and_removes_their_folders(
    tmp_path: Path, marker: str, flags: list[str]
) -> None:
    """Ablation: replace `self.runner.stop()` with `None` in `src/truegreen/runner/ablation.py`."""
    project, started, env = _project(tmp_path, marker)
    verb = _ablate(project, env, *flags)
    try:
        _wait_for(started, verb)
        # premise: the run is in flight, with its pytest and the process its test started
        assert any(f"sleeper-{marker}".encode() in _argv(pid) for pid in marked(marker))
        assert len(marked(marker)) >= 2
        assert _ours(tmp_path / "temp") != []
        verb.send_signal(signal.SIGTERM)
        verb.wait(timeout=60)
    finally:
        verb.kill()
        verb.wait()
    assert verb.returncode == 128 + signal.SIGTERM, _said(tmp_path)
    assert "truegreen ablate: terminated; its pytest runs were ended" in _said(tmp_path)
    assert _gone(marker) == []
    assert os.listdir(tmp_path / "temp") == []
    assert (project / "app" / "gate.py").read_text() == GATE


def test_ctrl_c_ends_the_runs_in_flight_and_removes_their_folders(
    tmp_path: Path, marker: str
) -> None:
    """Ablation: replace `self.runner.stop()` with `None` in `src/truegreen/runner/ablation.py`."""
    project, started, env = _project(tmp_path, marker)
    verb = _ablate(project, env)
    try:
        _wait_for(started, verb)
        assert len(marked(marker)) >= 2  # premise: the run is in flight
        verb.send_signal(signal.SIGINT)
        verb.wait(timeout=60)
    finally:
        verb.kill()
        verb.wait()
    assert verb.returncode == 130, _said(tmp_path)
    assert _gone(marker) == []
    assert os.listdir(tmp_path / "temp") == []


@pytest.mark.parametrize("flags", [["--warm"], ["--no-warm"]], ids=["warm", "cold"])
def test_kill_9_takes_the_pytest_runs_along_and_the_next_start_sweeps_the_folder(
    tmp_path: Path, marker: str, flags: list[str]
) -> None:
    """The pytest runs die with the verb (a parent-death signal); the folder it could not
    remove goes at the next start, and only a folder whose process is gone.

    Ablation: replace `libc.prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0) != 0` with `True` in
    `src/truegreen/guards/parent.py`."""
    project, started, env = _project(tmp_path, marker)
    temp = tmp_path / "temp"
    verb = _ablate(project, env, *flags)
    try:
        _wait_for(started, verb)
        assert len(marked(marker)) >= 2  # premise: the run is in flight
        verb.kill()
        verb.wait(timeout=60)
    finally:
        verb.kill()
        verb.wait()
    assert _gone(marker, but=f"sleeper-{marker}") == []  # what a test started may live on
    left = _ours(temp)
    assert left == [f for f in left if f.startswith(f"truegreen-ablate-{verb.pid}-")]
    assert left  # premise: a kill -9 leaves its folder
    assert (project / "app" / "gate.py").read_text() == GATE
    empty = tmp_path / "empty"
    empty.mkdir()
    again = subprocess.run(
        [sys.executable, "-m", "truegreen", "ablate", "--records", str(empty)],
        cwd=project, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert again.returncode == 0, again.stdout + again.stderr
    assert os.listdir(temp) == []


def test_the_sweep_leaves_a_live_process_s_folder_and_other_names(tmp_path: Path) -> None:
    """Only folders named for a process that is gone are removed.

    Ablation: replace `alive(int(pid))` with `False` in `src/truegreen/runner/scratch.py`."""
    from truegreen.runner.scratch import sweep

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    mine = tmp_path / f"truegreen-ablate-{os.getpid()}-abc"
    stale = tmp_path / f"truegreen-ablate-{dead.stdout.strip()}-abc"
    other = tmp_path / "truegreen-ablate-x8k2_q1z"  # an older truegreen's name: no pid in it
    for folder in (mine, stale, other):
        (folder / "run").mkdir(parents=True)
    assert stale.is_dir()  # premise
    assert sweep("truegreen-ablate-", str(tmp_path)) == [str(stale)]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([mine.name, other.name])


def _argv(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read()
    except OSError:
        return b""
