"""A claim's two runs from one pytest start-up: the premise, then the ablated run.

Loaded with ``-p truegreen.plugin.ablatepair --truegreen-pair=PLAN`` into one fork of the
warm server (``truegreen ablate``), and into no other. pytest starts as for any run: the
arguments parsed, the plugins registered (most of a warm run's cost). Then, at the first
hook that comes before anything of the user's runs (the process seal, the first conftest,
pytest's capture, every ``pytest_configure``), it forks twice in turn, and each fork is a
run of its own from there on, exactly as if started alone: the first is the premise, the
code intact; the second, only when the premise passed, the ablated run, its mutant served
from memory (:mod:`truegreen.guards.mutant`) and named in its environment from the start,
as a run of its own has it. The two share the start-up and nothing that either ran.

PLAN (JSON) names the mutant's file, the JUnit report (``--junitxml``, renamed to
``premise.xml`` or ``ablated.xml`` beside it as each run ends), each run's seconds (the
premise's from the controller's start of the session, an epoch deadline, as when it runs
alone) and the results file: for each run its exit status, whether it ran out of time, and
where its output ends in the session's output; or ``unpaired`` when a thread was running (a
fork copies only the calling thread) or, for the ablated run, when a plugin registered as
pytest started imported the target (the server leaves such a plugin out; here the mutant
would come too late), and the caller runs it alone. Neither run, nor this
process, ever writes the user's files.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Generator
from typing import Any, Optional

import pytest

from truegreen.guards import parent

OPTION = "--truegreen-pair"
RUNS = ("premise", "ablated")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("truegreen")
    group.addoption(OPTION, default=None, help="(truegreen ablate) the pair's plan")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> Generator[None, None, None]:
    # The first of every plugin's: nothing of the user's has run yet (no conftest, no seal,
    # no capture), and each run goes on from here in a fork of its own.
    plan = early_config.known_args_namespace.truegreen_pair
    if plan:
        Pair(plan).runs()
    return (yield)


def _loaded(path: str) -> bool:
    """Whether a module of this process was imported from the file ``path`` (a real path)."""
    for module in list(sys.modules.values()):
        found = getattr(module, "__file__", None)
        if isinstance(found, str) and os.path.realpath(found) == path:
            return True
    return False


class Pair:
    def __init__(self, plan_file: str) -> None:
        with open(plan_file, encoding="utf-8") as handle:
            self.plan: dict[str, Any] = json.load(handle)
        self.results: dict[str, Any] = {}
        self.session = os.getpid()

    def runs(self) -> None:
        """Fork the premise, then the ablated run; return only in a fork. This process
        waits for each, writes the results file, and ends."""
        report = self.plan["report"]
        for run in RUNS:
            if self._fork(run):
                return
            if os.path.exists(report):
                os.replace(report, os.path.join(os.path.dirname(report), f"{run}.xml"))
            said = self.results[run]
            if said.get("status") != 0 or said.get("timed_out"):
                break  # the premise failed: the ablated verdict would be discarded
        with open(self.plan["results"], "w", encoding="utf-8") as handle:
            json.dump(self.results, handle)
        os._exit(0)  # the session itself ran nothing: nothing of it to report or undo

    def _fork(self, run: str) -> bool:
        """Fork the run ``run``; True in the fork. In this process: wait for it, and note
        its result (or why it was not forked)."""
        why = self._refusal(run)
        if why is not None:
            self.results[run] = {"unpaired": why}
            return False
        sys.stdout.flush()
        sys.stderr.flush()
        gc.freeze()  # what the start-up built stays out of each run's collections (as the server's)
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:
            self._become(run)
            return True
        seconds = float(self.plan["timeout"])
        if run == "premise":  # the session's start counts in the premise's seconds
            seconds = min(seconds, float(self.plan["premise_deadline"]) - time.time())
        status, timed_out = _wait(pid, start + seconds)
        self.results[run] = {
            "status": status,
            "timed_out": timed_out,
            "end": os.lseek(1, 0, os.SEEK_CUR),  # its output ends here in the session's
            "seconds": round(time.monotonic() - start, 3),
        }
        return False

    def _refusal(self, run: str) -> Optional[str]:
        if threading.active_count() != 1:
            return f"{threading.active_count()} threads running"
        if run == "ablated" and _loaded(self.plan["target"]):
            return "a plugin imported the target as pytest started"
        return None

    def _become(self, run: str) -> None:
        """In the fork: a run of its own (its own session, as a run started alone); the
        ablated one serves the mutant, here and in every Python process it starts."""
        os.setsid()
        if parent.armed():  # the session dies with the server: the runs die with the session
            parent.die_with(self.session)
        if run == "ablated":
            from truegreen.guards.mutant import MUTANT_VAR, install_from_environment

            os.environ[MUTANT_VAR] = self.plan["mutant"]
            install_from_environment()


def _wait(pid: int, deadline: float) -> tuple[int, bool]:
    """The fork's exit status, or (124, True) when it ran past ``deadline`` (monotonic) and
    was ended with its whole process tree. It sleeps on the fork's pidfd where there is one
    (Linux), else it looks again and again, more slowly each time."""
    watch = None
    with contextlib.suppress(AttributeError, OSError):
        watch = os.pidfd_open(pid)
    pause = 0.001
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status), False
            left = deadline - time.monotonic()
            if left <= 0:
                _end(pid)
                return 124, True
            if watch is not None:
                select.select([watch], [], [], left)
            else:
                time.sleep(min(pause, left))
                pause = min(pause * 2, 0.02)
    finally:
        if watch is not None:
            os.close(watch)


def _end(pid: int) -> None:
    """End the run ``pid`` and every process below it, and return once they are gone (an
    orphan is gone when whoever adopted it collected it), or after two seconds."""
    from truegreen.guards.procfs import descendants

    tree = [pid, *descendants(pid)]
    for signum in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(OSError):
            os.killpg(pid, signum)
        for each in tree:
            with contextlib.suppress(OSError):
                os.kill(each, signum)
        if signum == signal.SIGTERM:
            time.sleep(0.5)
    os.waitpid(pid, 0)
    gone = time.monotonic() + 2.0
    while time.monotonic() < gone and any(_exists(each) for each in tree[1:]):
        time.sleep(0.02)


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True
