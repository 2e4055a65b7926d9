"""Leftover processes: a child a test started and left running is reported after the test.

A child process that outlives its test keeps its ports, files and locks: a later test passes
or fails because of it, not because of its own code, and the process outlives the CI step too.
After each test the children it started (guards/leftovers.py) are polled; one still running is
reported on the test's teardown, or fails it (``fail``), or is killed on the spot (``kill``).
Whatever still runs when the session ends is stopped then and listed in the summary.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Callable, Optional

import pytest

from truegreen.core.config import Config
from truegreen.core.words import counted
from truegreen.guards.leftovers import Child, Leftovers, stop
from truegreen.plugin.listing import HooksOnly
from truegreen.plugin.relay import relay
from truegreen.plugin.stash import GUARD_KEY, per_test

SECTION = "truegreen leftover processes"
WHY = (
    "A child left running keeps its ports, files and locks for the tests after it, and "
    "outlives the run. Wait for it (Popen.wait or communicate, a with block), or start it in "
    "a fixture that stops it"
)


class LeftoversPlugin(HooksOnly):
    """Polls each test's children after it; stops and lists the leftovers at the end."""

    def __init__(self, config: pytest.Config, mode: str) -> None:
        self.config = config
        self.mode = mode
        self.leftovers: Optional[Leftovers] = None
        # One row per leftover: [who started it, test, pid, command, fate, fails the run].
        self.rows: list[list[Any]] = []
        self.relay = relay(config)
        self.received: list[list[Any]] = []

    @classmethod
    def register(cls, config: pytest.Config, settings: Config) -> None:
        plugin = cls(config, settings.leftover_processes)
        config.pluginmanager.register(plugin, "truegreen-leftovers")
        per_test(config).add("leftovers", plugin)
        plugin.relay.listen("leftovers", plugin.received.extend)

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        guard = self.config.stash.get(GUARD_KEY, None)  # set by the guards' tryfirst hook
        if guard is not None:
            self.leftovers = Leftovers(guard.locate)
            guard.on_popen = self.leftovers.started
            guard.on_spawn = self.leftovers.spawned

    def on_logreport(self, report: pytest.TestReport) -> None:
        leftovers = self.leftovers
        if leftovers is None or not leftovers.waiting or report.when != "teardown":
            return
        left = leftovers.check()
        if not left:
            return
        if self.mode == "kill":
            stop(left)
            for child in left:
                child.fate = "killed after the test"
        text = explain(left, self.mode)
        if self.mode == "fail" and report.passed:
            report.outcome = "failed"
            report.longrepr = text
        else:
            report.sections.append((f"{SECTION} (teardown)", text))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        leftovers = self.leftovers
        if leftovers is None:
            return
        guard = self.config.stash.get(GUARD_KEY, None)
        if guard is not None:
            guard.on_popen = guard.on_spawn = None
        fail = self.mode == "fail"
        self.rows = [
            [_who(c), c.test, c.pid, c.command(), c.fate, fail and c.wider]
            for c in leftovers.finish()
        ]
        self.leftovers = None
        if self.relay.worker:
            self.relay.ship("leftovers", self.rows)
        failing = any(row[5] for row in (*self.rows, *self.received))
        if failing and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        rows = [*self.rows, *self.received]
        if not rows:
            return
        tr = terminalreporter
        tr.write_sep("-", SECTION, red=any(row[5] for row in rows))
        for line in summary_lines(rows, self.relay.ordered, self.mode):
            tr.write_line(line)


def _who(child: Child) -> str:
    if not child.wider:
        return child.owner
    if child.test is None:
        return child.owner
    return f"{child.owner} (set up for {child.test})"


def explain(left: list[Child], mode: str) -> str:
    """The text on the test's teardown report."""
    count = counted(len(left), "child process", "child processes")
    lines = [f"truegreen: this test left {count} running:"]
    lines += [f"  {c.describe()}" + (f" ({c.fate})" if c.fate else "") for c in left]
    lines.append(f'{WHY}; leftover-processes = "{mode}" in [tool.truegreen].')
    return "\n".join(lines)


def summary_lines(
    rows: list[list[Any]], ordered: Callable[[Iterable[str]], list[str]], mode: str
) -> list[str]:
    """The summary section: each leftover under who started it, tests in the run's order."""
    by_who: dict[str, list[list[Any]]] = {}
    for row in rows:
        by_who.setdefault(row[0], []).append(row)
    lines = [f"child processes left running ({counted(len(rows), 'process', 'processes')}):"]
    for who in ordered(by_who):
        lines.append(f"  {who}")
        lines += [f"    pid {row[2]}: {row[3]} ({row[4]})" for row in by_who[who]]
    if mode == "fail":
        lines.append(
            'leftover-processes = "fail": each test that left one failed, and a wider '
            "fixture's that ran at the end fails the run"
        )
    else:
        lines.append(f'leftover-processes = "{mode}": the run does not fail for them')
    return lines
