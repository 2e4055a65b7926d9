"""A batch of ``truegreen ablate --discover``: many claims in one pytest process.

Loaded with ``-p truegreen.plugin.ablatebatch --truegreen-batch=PLAN`` into one pytest run
(a fork of the warm server, or a new process), and into no other. The run serves each
target file with all its claims in, each behind a switch
(:func:`truegreen.core.discovery.switched`, :mod:`truegreen.guards.mutant`). PLAN (JSON)
names the claims, each by its number, its switch and its test, the results file, and the seconds a
claim may take. Each selected test runs first with every switch off (the premise, in this
very process), then once with each of its claims' switches on; every fixture is set up and
torn down for each run. A line of JSON goes to the results file, flushed, as each run
starts and ends, so the caller knows how far a batch went if it dies. A claim is
interrupted, and its verdict is a timeout, when its test's call has used a few times the
CPU the unablated call used and a little more (a loop: CPU time, which other processes on a
busy machine do not inflate), or when its whole run has taken some times the unablated
run's wall time and a little more (code that waits), as PLAN says, and at most its
seconds; one that cannot be interrupted ends the process, and the caller runs the rest in
another batch.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from typing import IO, Any, Optional

import pytest
from _pytest.runner import runtestprotocol

from truegreen.guards.mutant import switch
from truegreen.plugin.listing import HooksOnly

OPTION = "--truegreen-batch"
EXPIRED = 70  # the exit status of a batch whose claim ran out of time


class OutOfTime(BaseException):
    """A claim's run out of time (a BaseException: no ``except Exception`` of the code
    under test swallows it)."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("truegreen")
    group.addoption(OPTION, default=None, help="(truegreen ablate --discover) the batch plan")


def pytest_configure(config: pytest.Config) -> None:
    plan = config.getoption(OPTION)
    if plan:
        config.pluginmanager.register(Batch(plan), "truegreen-ablate-batch")


def _why(reports: list[pytest.TestReport]) -> tuple[str, str]:
    """(failed, skipped, or passed; the first line of why) of one run of a test."""
    for report in reports:
        if report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            line = getattr(crash, "message", None) or str(report.longrepr).strip()
            return "failed", f"{report.when}: {line.splitlines()[0] if line else ''}"
    for report in reports:
        if report.skipped:
            return "skipped", f"{report.when}: skipped"
    return "passed", ""


class Batch(HooksOnly):
    def __init__(self, plan_file: str) -> None:
        with open(plan_file, encoding="utf-8") as handle:
            plan = json.load(handle)
        self.timeout = float(plan["timeout"])
        self.slow, self.grace = plan["limit"]  # of the whole run's wall time
        self.cpu_slow, self.cpu_grace = plan["cpu"]  # of the test call's CPU time
        self.cpu_limit = 0.0  # of the call running now (0: none)
        self.call_cpu = 0.0  # CPU seconds the last call took
        self.claims: dict[str, list[tuple[int, int]]] = {}  # test -> (claim, its switch)
        for number, switched, test in plan["claims"]:
            self.claims.setdefault(test, []).append((number, switched))
        self.expired = ""  # which limit the run now ended by: "cpu", "wall" or none
        self.out: IO[str] = open(plan["results"], "a", encoding="utf-8")  # noqa: SIM115

    def _write(self, entry: dict[str, Any]) -> None:
        self.out.write(json.dumps(entry) + "\n")
        self.out.flush()

    def _expire(self, number: int) -> None:
        self._write({"n": number, "result": "timeout"})
        os._exit(EXPIRED)

    def _alarm(self, signum: int, frame: Any) -> None:
        self.expired = "cpu" if signum == getattr(signal, "SIGPROF", None) else "wall"
        for timer in (signal.ITIMER_PROF, signal.ITIMER_REAL):  # one interruption a run
            signal.setitimer(timer, 0)
        raise OutOfTime("the ablated run did not finish in time")

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Any:
        # The call alone is held to a CPU limit: a failure's report (a long traceback) is
        # made after it, and is no loop.
        limit = self.cpu_limit if hasattr(signal, "setitimer") else 0
        limit = limit if threading.current_thread() is threading.main_thread() else 0
        previous: Any = None
        if limit:
            previous = signal.signal(signal.SIGPROF, self._alarm)
            signal.setitimer(signal.ITIMER_PROF, limit)
        start = time.process_time()
        try:
            return (yield)
        finally:
            self.call_cpu = time.process_time() - start
            if limit:
                signal.setitimer(signal.ITIMER_PROF, 0)
                signal.signal(signal.SIGPROF, previous)

    def _once(
        self, item: pytest.Item, number: int, switched: int, seconds: float = 0.0,
        cpu: float = 0.0,
    ) -> tuple[str, str]:  # fmt: skip
        """One run of ``item``'s whole protocol, with switch ``switched`` on (0: none),
        within ``seconds`` of wall time and its call within ``cpu`` seconds of CPU (0: no
        limit): then an alarm interrupts the test where it is, and for code that holds on
        to the interpreter (a loop in C) a thread ends the process a little later."""
        switch(switched)
        self.cpu_limit = cpu
        timer: Optional[threading.Timer] = None
        alarm = seconds and hasattr(signal, "setitimer")
        alarm = alarm and threading.current_thread() is threading.main_thread()
        previous: Any = None
        self.expired = ""
        if seconds:
            timer = threading.Timer(seconds + 20, self._expire, (number,))
            timer.daemon = True
            timer.start()
        if alarm:
            previous = signal.signal(signal.SIGALRM, self._alarm)
            signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            result = _why(runtestprotocol(item, log=False, nextitem=None))
            if self.expired == "cpu":
                return "timeout", f"more than {cpu:.2f} s of CPU in the test's call"
            if self.expired:
                return "timeout", f"more than {seconds:.2f} s"
            return result
        finally:
            self.cpu_limit = 0.0
            if alarm:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)
            if timer is not None:
                timer.cancel()
            switch(0)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: Optional[pytest.Item]) -> bool:
        numbers = self.claims.get(item.nodeid, [])
        start = time.perf_counter()
        result, why = self._once(item, 0, 0)
        # An ablated run may loop where the test returned: its call gets a few times the
        # CPU of the unablated call and a little more, and the whole run some times the
        # unablated run's time and a little more, within the caller's limit.
        limit = min(self.timeout, self.grace + self.slow * (time.perf_counter() - start))
        cpu = min(limit, self.cpu_grace + self.cpu_slow * self.call_cpu)
        if result != "passed":
            for number, _ in numbers:
                self._write({"n": number, "result": "premise", "why": why})
            return True
        for number, switched in numbers:
            self._write({"n": number, "result": "started"})
            start = time.perf_counter()
            result, why = self._once(item, number, switched, limit, cpu)
            seconds = round(time.perf_counter() - start, 3)
            self._write({"n": number, "result": result, "why": why, "seconds": seconds})
        return True

    def pytest_unconfigure(self) -> None:
        self.out.close()
