"""Failure hints: a failing sealed test's report says what the seal took away that it reached for.

While a sealed test runs, the guards note its reads under its home and the identity of the
git commands it starts, and the ambient-reads patch notes the cleared variables it asked
for; nothing more, and only then. The lines are written only into a failing report.
"""

from __future__ import annotations

import os
from typing import Any, Optional

import pytest

from truegreen.core.hints import Reached, hint_lines, home_relative
from truegreen.guards.runtime import Guard
from truegreen.plugin.ambient import AmbientReads
from truegreen.plugin.hermetic import Hermetic, HermeticPlugin
from truegreen.plugin.stash import AMBIENT_KEY, GUARDS_KEY

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


class HintsPlugin:
    """Registered when the hermetic environment and the guards are both on."""

    def __init__(self, config: pytest.Config, hermetic: HermeticPlugin) -> None:
        self.config = config
        self.hermetic = hermetic
        self.guard: Optional[Guard] = None
        self.ambient: Optional[AmbientReads] = None
        self.sealed: Optional[Hermetic] = None
        self.hinted: Optional[str] = None
        self._spawns = 0  # the guard's spawns before this test
        self._cleared: tuple[str, ...] = ()
        self._declared: frozenset[str] = frozenset()

    @classmethod
    def register(cls, config: pytest.Config, hermetic: HermeticPlugin) -> None:
        plugin = cls(config, hermetic)
        hermetic.on_seal = plugin.start
        # Registered before the guards: of two tryfirst hooks pluggy runs the later-registered
        # first, so the guards have read the children's records (and failed a report for a
        # violation) before the hints look.
        config.pluginmanager.register(plugin, "truegreen-hints")

    def pytest_sessionstart(self) -> None:
        guards = self.config.stash.get(GUARDS_KEY, None)
        self.guard = guards.guard if guards is not None else None
        self.ambient = self.config.stash.get(AMBIENT_KEY, None)

    def start(self, sealed: Hermetic) -> None:
        """The seal is on: watch what this test reaches for."""
        self.sealed = sealed
        guard = self.guard
        if guard is not None:
            guard.home = str(sealed.home) + os.sep
            if guard.home_reads:
                guard.home_reads = set()
            self._spawns = len(guard.spawns)
        ambient = self.ambient
        if ambient is not None:
            if sealed.cleared != self._cleared:
                reason = self.hermetic.seal.reason
                self._cleared = sealed.cleared
                self._declared = frozenset(
                    name for name in sealed.cleared if (reason(name) or "").startswith("declared")
                )
            ambient.watch = self._declared
            if ambient.misses:
                ambient.misses = set()

    def pytest_runtest_logfinish(self) -> None:
        if self.sealed is None:
            return
        self.sealed = self.hinted = None
        if self.guard is not None:
            self.guard.home = None
        if self.ambient is not None:
            self.ambient.watch = frozenset()

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
        if self.ambient is not None and self.ambient.misses:
            reason = self.hermetic.seal.reason
            # Still absent: monkeypatch.setenv() also asks for the old value before setting it.
            cleared = tuple(
                (name, reason(name) or "")
                for name in sorted(self.ambient.misses)
                if name not in os.environ
            )
        return Reached(missing=missing, git=git, cleared=cleared)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        sealed = self.sealed
        if not report.failed or sealed is None or self.hinted == report.nodeid:
            return
        lines = hint_lines(self.reached(report.nodeid, sealed))
        if lines:
            self.hinted = report.nodeid
            attach(report, lines)
