"""Run integrity: a skipped gate is not a green gate, and a run that ran nothing is not green.

``must-run`` patterns name gate tests that must have been collected, run and passed; a
skip, a deselection or an absence fails the run and says the gate did not run (doctrine
001). A run that executes no test at all fails unless ``allow-empty`` (pytest's own exit
status 5 covers only "nothing collected", doctrine 002). The summary prints the numbers a
reader needs to see that the intended behaviour was exercised.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from truegreen.core.config import Config
from truegreen.core.mustrun import matches
from truegreen.plugin.stash import SHARDED_OUT_KEY, per_test


def _reason(report: pytest.TestReport) -> str:
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else "skipped"
    return str(reason).removeprefix("Skipped: ")


class IntegrityPlugin:
    """Counts what the run collected, deselected, ran and skipped; enforces the gates."""

    def __init__(self, settings: Config) -> None:
        self.must_run = settings.must_run
        self.allow_empty = settings.allow_empty
        self.collected: list[str] = []
        self.deselected: set[str] = set()
        self.ran: dict[str, str] = {}  # nodeid -> outcome of its call
        self.failed_setup: set[str] = set()
        self.skipped: dict[str, str] = {}  # nodeid -> reason
        self.problems: list[str] = []
        self.collected_elsewhere = 0

    @classmethod
    def register(cls, config: pytest.Config, settings: Config) -> None:
        """Register the count; the per-test fan-out hands it each report (after the guards
        have failed it, if they did)."""
        plugin = cls(settings)
        config.pluginmanager.register(plugin, "truegreen-integrity")
        per_test(config).add("integrity", plugin)

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.deselected.update(item.nodeid for item in items)
        self.collected.extend(item.nodeid for item in items)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # After every selection, whatever order the plugins that select run in: what is left
        # will run; what was deselected was recorded as it went. Tests with collection
        # errors are in neither.
        self.collected.extend(item.nodeid for item in session.items)

    def on_logreport(self, report: pytest.TestReport) -> None:
        """Count one report (after the guards have failed it, if they did)."""
        when, outcome = report.when, report.outcome
        if when == "call":
            if "wasxfail" in report.__dict__:
                self.ran[report.nodeid] = "xfailed" if outcome == "skipped" else "xpassed"
            elif outcome == "skipped":  # pytest.skip() inside the test: it did not run
                self.skipped[report.nodeid] = _reason(report)
            else:
                self.ran[report.nodeid] = outcome
        elif when == "setup":
            if outcome == "skipped":
                self.skipped[report.nodeid] = _reason(report)
            elif outcome == "failed":
                self.failed_setup.add(report.nodeid)

    def gate_problems(self, elsewhere: set[str]) -> list[str]:
        """One line per must-run pattern or gate test that did not run and pass here.

        Tests in ``elsewhere`` belong to other shards: ``truegreen shards verify`` checks
        that they passed there.
        """
        found = []
        for pattern in self.must_run:
            hits = [n for n in self.collected if matches(n, pattern)]
            if not hits:
                found.append(f"{pattern}: no collected test matches: the gate did not run")
            for nodeid in hits:
                if nodeid in elsewhere:
                    continue
                if nodeid in self.deselected:
                    found.append(f"{nodeid}: deselected: the gate did not run")
                elif nodeid in self.skipped:
                    found.append(
                        f"{nodeid}: skipped ({self.skipped[nodeid]}): the gate did not run"
                    )
                elif nodeid in self.failed_setup:
                    found.append(f"{nodeid}: error at setup: the gate did not run")
                elif nodeid not in self.ran:
                    found.append(f"{nodeid}: not run: the gate did not run")
                elif self.ran[nodeid] != "passed":
                    found.append(f"{nodeid}: {self.ran[nodeid]}: the gate did not pass")
        return found

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        config = session.config
        if config.getoption("collectonly") or config.getoption("setuponly", False):
            return
        if config.getoption("setupplan", False):
            return
        elsewhere = config.stash.get(SHARDED_OUT_KEY, set())
        self.collected_elsewhere = len(elsewhere)
        self.problems = self.gate_problems(elsewhere)
        here = [n for n in self.collected if n not in elsewhere]
        empty = bool(here) and not self.ran and not self.allow_empty
        if empty and session.exitstatus in (0, pytest.ExitCode.NO_TESTS_COLLECTED):
            self.problems.append(
                "no test ran: every collected test was skipped or deselected "
                "(allow-empty = true in [tool.truegreen] accepts that)"
            )
        if self.problems and session.exitstatus in (0, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def counts(self) -> str:
        outcomes = Counter(self.ran.values())
        kinds = ("passed", "failed", "xfailed", "xpassed")
        ran = ", ".join(f"{outcomes[k]} {k}" for k in kinds if outcomes[k])
        parts = [
            f"collected {len(self.collected)}",
            f"ran {len(self.ran)}" + (f" ({ran})" if ran else ""),
        ]
        if self.failed_setup:
            parts.append(f"errors at setup {len(self.failed_setup)}")
        parts.append(f"skipped {len(self.skipped)}")
        elsewhere = self.collected_elsewhere
        parts.append(f"deselected {len(self.deselected) - elsewhere}")
        if elsewhere:
            parts.append(f"in other shards {elsewhere}")
        return ", ".join(parts)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.collected:
            return
        tr = terminalreporter
        tr.write_sep("-", "truegreen run integrity")
        tr.write_line(self.counts())
        reasons = Counter(self.skipped.values())
        for reason, count in reasons.most_common():
            tr.write_line(f"  skipped {count}: {reason}")
        for problem in self.problems:
            tr.write_line(f"FAILED GATE {problem}", red=True)
