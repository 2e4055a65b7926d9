"""A batch of ``truegreen ablate --discover``: many claims in one pytest process.

Loaded with ``-p truegreen.plugin.ablatebatch --truegreen-batch=PLAN`` into one pytest run
(a fork of the warm server, or a new process), and into no other. The run serves each
target file with all its claims in, each behind a switch
(:func:`truegreen.core.discovery.switched`, :mod:`truegreen.guards.mutant`). PLAN (JSON)
names the claims, each by its number, its switch and its test, the results file, and the seconds a
claim may take. Each selected test runs first with every switch off (the premise, in this
very process), then once with each of its claims' switches on; every fixture is set up and
torn down for each run. A line of JSON goes to the results file, flushed, as each run
starts and ends, so the caller knows how far a batch went if it dies; a claim still running
after a few times the unablated run's time and a little more (as PLAN says, and at most
its seconds) is interrupted, and its verdict is a timeout; one that cannot be interrupted ends
the process, and the caller runs the rest in another batch.
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


class Batch:
    def __init__(self, plan_file: str) -> None:
        with open(plan_file, encoding="utf-8") as handle:
            plan = json.load(handle)
        self.timeout = float(plan["timeout"])
        self.slow, self.grace = plan["limit"]
        self.claims: dict[str, list[tuple[int, int]]] = {}  # test -> (claim, its switch)
        for number, switched, test in plan["claims"]:
            self.claims.setdefault(test, []).append((number, switched))
        self.expired = False
        self.out: IO[str] = open(plan["results"], "a", encoding="utf-8")  # noqa: SIM115

    def _write(self, entry: dict[str, Any]) -> None:
        self.out.write(json.dumps(entry) + "\n")
        self.out.flush()

    def _expire(self, number: int) -> None:
        self._write({"n": number, "result": "timeout"})
        os._exit(EXPIRED)

    def _alarm(self, signum: int, frame: Any) -> None:
        self.expired = True
        raise OutOfTime("the ablated run did not finish in time")

    def _once(
        self, item: pytest.Item, number: int, switched: int, seconds: float = 0.0
    ) -> tuple[str, str]:
        """One run of ``item``'s whole protocol, with switch ``switched`` on (0: none),
        within ``seconds`` (0: no limit): then an alarm interrupts the test where it is,
        and for code that holds on to the interpreter (a loop in C) a thread ends the
        process a little later."""
        switch(switched)
        timer: Optional[threading.Timer] = None
        alarm = seconds and hasattr(signal, "setitimer")
        alarm = alarm and threading.current_thread() is threading.main_thread()
        previous: Any = None
        self.expired = False
        if seconds:
            timer = threading.Timer(seconds + 20, self._expire, (number,))
            timer.daemon = True
            timer.start()
        if alarm:
            previous = signal.signal(signal.SIGALRM, self._alarm)
            signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            result = _why(runtestprotocol(item, log=False, nextitem=None))
            return ("timeout", "") if self.expired else result
        finally:
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
        # An ablated run may loop where the test returned: it gets a few times the
        # unablated run's time and a little more, within the caller's limit.
        limit = min(self.timeout, self.grace + self.slow * (time.perf_counter() - start))
        if result != "passed":
            for number, _ in numbers:
                self._write({"n": number, "result": "premise", "why": why})
            return True
        for number, switched in numbers:
            self._write({"n": number, "result": "started"})
            start = time.perf_counter()
            result, why = self._once(item, number, switched, limit)
            seconds = round(time.perf_counter() - start, 3)
            self._write({"n": number, "result": result, "why": why, "seconds": seconds})
        return True

    def pytest_unconfigure(self) -> None:
        self.out.close()
