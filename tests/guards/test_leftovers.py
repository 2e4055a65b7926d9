"""Stopping a leftover: the polite signal first, then the one that cannot be ignored."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from truegreen.guards.leftovers import Child, stop

STUBBORN = (
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "print('ready', flush=True); time.sleep(60)"
)


@pytest.mark.platforms("posix")
def test_a_child_that_ignores_the_polite_signal_is_killed() -> None:
    """Ablation: replace `_signal(child, kill=True)` with `None` in
    `src/truegreen/guards/leftovers.py`: the child runs on."""
    child = subprocess.Popen([sys.executable, "-c", STUBBORN], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == b"ready\n"  # premise: SIGTERM is ignored from now on
        stop([Child("t.py::t", "t.py::t", ["stubborn"], child)], wait=0.2)
        assert child.returncode == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        if child.stdout is not None:
            child.stdout.close()


@pytest.mark.platforms("posix")
def test_a_child_that_ends_on_the_polite_signal_is_not_killed() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        stop([Child("t.py::t", "t.py::t", ["sleeper"], child)], wait=5)
        assert child.returncode == -signal.SIGTERM
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
