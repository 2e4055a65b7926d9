"""Failure hints: a failing sealed test's report says what the seal took away that it reached for.

From a test's seal to its unseal, the guards note its reads under its home and the identity of
the git commands it starts, and the ambient-reads patch notes the cleared variables it asked
for; nothing more, and only then. No hook of its own: the hermetic plugin calls ``start`` and
``stop``, and the guards hand it each report once they have read the children's records and
failed the report for any violation.
"""

from __future__ import annotations

import os
from typing import Any, Optional

import pytest

from truegreen.core.hints import Reached, hint_lines, home_relative
from truegreen.plugin.ambient import AmbientReads
from truegreen.plugin.hermetic import Hermetic, HermeticPlugin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from truegreen.plugin.guards import GuardsPlugin

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

    def __init__(
        self, hermetic: HermeticPlugin, guards: GuardsPlugin, ambient: AmbientReads
    ) -> None:
        self.hermetic = hermetic
        self.guards = guards
        self.ambient = ambient
        self.sealed: Optional[Hermetic] = None
        self.hinted: Optional[str] = None
        self._spawns = 0  # the guard's spawns before this test
        self._cleared: tuple[str, ...] = ()
        self._declared: frozenset[str] = frozenset()

    @classmethod
    def install(
        cls, hermetic: HermeticPlugin, guards: GuardsPlugin, ambient: AmbientReads
    ) -> FailureHints:
        hints = cls(hermetic, guards, ambient)
        hermetic.on_seal, hermetic.on_unseal = hints.start, hints.stop
        guards.hints = hints
        return hints

    def start(self, sealed: Hermetic) -> None:
        """The seal is on: watch what this test reaches for."""
        self.sealed = sealed
        guard = self.guards.guard
        if guard is not None:
            guard.home = str(sealed.home) + os.sep
            if guard.home_reads:
                guard.home_reads = set()
            self._spawns = len(guard.spawns)
        ambient = self.ambient
        if sealed.cleared != self._cleared:
            reason = self.hermetic.seal.reason
            self._cleared = sealed.cleared
            self._declared = frozenset(
                name for name in sealed.cleared if (reason(name) or "").startswith("declared")
            )
        ambient.watch = self._declared
        if ambient.misses:
            ambient.misses = set()

    def stop(self) -> None:
        """The seal is off: stop watching (a teardown failure gets no hint)."""
        self.sealed = self.hinted = None
        if self.guards.guard is not None:
            self.guards.guard.home = None
        self.ambient.watch = frozenset()

    def reached(self, nodeid: str, sealed: Hermetic) -> Reached:
        """What the running test reached for that its seal took away."""
        missing: tuple[str, ...] = ()
        git: tuple[str, ...] = ()
        guard = self.guards.guard
        if guard is not None:
            absent = [path for path in guard.home_reads if not os.path.exists(path)]
            missing = tuple(home_relative(absent, str(sealed.home), os.sep))
            git = tuple(
                spawn.verb or "?"
                for spawn in guard.spawns[self._spawns :]
                if spawn.anonymous and spawn.test == nodeid
            )
        cleared: tuple[tuple[str, str], ...] = ()
        if self.ambient.misses:
            reason = self.hermetic.seal.reason
            # Still absent: monkeypatch.setenv() also asks for the old value before setting it.
            cleared = tuple(
                (name, reason(name) or "")
                for name in sorted(self.ambient.misses)
                if name not in os.environ
            )
        return Reached(missing=missing, git=git, cleared=cleared)

    def explain(self, report: pytest.TestReport) -> None:
        """Add the hint to the first failing report of a sealed test, if it reached for any."""
        sealed = self.sealed
        if not report.failed or sealed is None or self.hinted == report.nodeid:
            return
        lines = hint_lines(self.reached(report.nodeid, sealed))
        if lines:
            self.hinted = report.nodeid
            attach(report, lines)
