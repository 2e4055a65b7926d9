"""Failure hints: a failing sealed test's report says what the seal took away that it reached for.

From a test's seal to its unseal, the guards note its reads under its home and the identity of
the git commands it starts, and the ambient-reads patch notes the cleared variables it asked
for; nothing more, and only then. No hook of its own: the per-test fan-out hands it each seal,
unseal and report (the report after the guards have read the children's records and failed it
for any violation). What it reads of the others comes through ``config.stash``: the guard,
the seal, and the watch on ``os.environ``.
"""

from __future__ import annotations

import os
from typing import Any, Optional

import pytest

from truegreen.core.hints import Reached, hint_lines, home_relative
from truegreen.guards.runtime import Guard
from truegreen.plugin.sealed import Hermetic
from truegreen.plugin.stash import GUARD_KEY, NOTE_READS_KEY, SEAL_KEY, env_watch, per_test

SECTION = "truegreen hint"


def attach(report: pytest.TestReport, lines: list[str]) -> None:
    """Add the hint to the failure text, so the terminal and JUnit XML both show it."""
    text = "\n".join(lines)
    longrepr: Any = report.longrepr
    if hasattr(longrepr, "addsection"):
        longrepr.addsection(SECTION, text)
    elif isinstance(longrepr, str):
        report.longrepr = f"{longrepr}\n{text}"
    else:
        report.sections.append((SECTION, text))


class FailureHints:
    """Set up when the hermetic environment and the guards are both on."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.watch = env_watch(config)
        self.guard: Optional[Guard] = None  # the guards' runtime, once their session started
        self.sealed: Optional[Hermetic] = None
        self.hinted: Optional[str] = None
        self._spawns = 0  # the guard's spawns before this test
        self._cleared: tuple[str, ...] = ()
        self._declared: frozenset[str] = frozenset()

    @classmethod
    def register(cls, config: pytest.Config) -> None:
        config.stash[NOTE_READS_KEY] = True
        per_test(config).add("hints", cls(config))

    def _reason(self, name: str) -> Optional[str]:
        seal = self.config.stash.get(SEAL_KEY, None)
        return None if seal is None else seal.reason(name)

    def on_seal(self, sealed: Hermetic) -> None:
        """The seal is on: watch what this test reaches for."""
        self.sealed = sealed
        guard = self.guard
        if guard is None:
            guard = self.guard = self.config.stash.get(GUARD_KEY, None)
        if guard is not None:
            guard.home = str(sealed.home) + os.sep
            if guard.home_reads:
                guard.home_reads = set()
            self._spawns = len(guard.spawns)
        watch = self.watch
        if sealed.cleared != self._cleared:
            reason = self._reason
            self._cleared = sealed.cleared
            self._declared = frozenset(
                name for name in sealed.cleared if (reason(name) or "").startswith("declared")
            )
        watch.names = self._declared
        if watch.misses:
            watch.misses = set()

    def on_unseal(self) -> None:
        """The seal is off: stop watching (a teardown failure gets no hint)."""
        self.sealed = self.hinted = None
        if self.guard is not None:
            self.guard.home = None
        self.watch.names = frozenset()

    def reached(self, nodeid: str, sealed: Hermetic) -> Reached:
        """What the running test reached for that its seal took away."""
        missing: tuple[str, ...] = ()
        git: tuple[str, ...] = ()
        guard = self.guard
        if guard is not None:
            absent = [path for path in guard.home_reads if not os.path.exists(path)]
            missing = tuple(home_relative(absent, str(sealed.home), os.sep))
            git = tuple(
                spawn.verb or "?"
                for spawn in guard.spawns[self._spawns :]
                if spawn.anonymous and spawn.test == nodeid
            )
        cleared: tuple[tuple[str, str], ...] = ()
        if self.watch.misses:
            reason = self._reason
            # Still absent: monkeypatch.setenv() also asks for the old value before setting it.
            cleared = tuple(
                (name, reason(name) or "")
                for name in sorted(self.watch.misses)
                if name not in os.environ
            )
        return Reached(missing=missing, git=git, cleared=cleared)

    def on_logreport(self, report: pytest.TestReport) -> None:
        """Add the hint to the first failing report of a sealed test, if it reached for any."""
        sealed = self.sealed
        if not report.failed or sealed is None or self.hinted == report.nodeid:
            return
        lines = hint_lines(self.reached(report.nodeid, sealed))
        if lines:
            self.hinted = report.nodeid
            attach(report, lines)
