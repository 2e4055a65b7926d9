"""Failure hints: a failing sealed test's report says what the seal took away that it reached for.

From a test's seal to its unseal, the guards note its reads under its home and the identity of
the git commands it starts, and the ambient-reads patch notes the watched variables it asked
for (those the seal cleared, and the zone, locale and terminal it set); nothing more, and only
then. No hook of its own: the per-test fan-out hands it each seal, unseal and report (the
report after the guards have read the children's records and failed it for any violation).
What it reads of the others comes through ``config.stash``: the guard, the seal, the machine's
variable names, and the watch on ``os.environ``.
"""

from __future__ import annotations

import importlib.util
import os
from typing import TYPE_CHECKING, Any, Optional

import pytest

from truegreen.guards.runtime import Guard
from truegreen.plugin.sealed import Hermetic
from truegreen.plugin.stash import (
    AMBIENT_KEY,
    GUARD_KEY,
    MAPPING_FILES,
    NOTE_READS_KEY,
    SEAL_KEY,
    EnvWatch,
    env_watch,
    per_test,
)

if TYPE_CHECKING:
    from truegreen.core.hints import Reached

# The variables the seal sets whose reading a hint names: what a zone, a locale, a terminal
# of the developer's changes. (The git ones have a hint of their own.)
FIXED = ("TZ", "LANG", "TERM")
# The reasons of the variables the seal clears for the same: a hint names those this machine
# set, since only then did the seal change what the test found.
MACHINE_REASONS = ("locale", "terminal")
# Code that reads the environment on no test's behalf: pytest's own (its terminal writer reads
# the colour variables as it renders a failure), pluggy's, truegreen's; gettext's lookup of a
# message catalogue and argparse's check of every argument it is given (each asks for the
# locale or the terminal size whatever the test does); the traceback colouring of Python 3.13+.
IGNORED = ("_pytest", "pluggy", "truegreen", "gettext", "argparse", "_colorize")
# Helpers that ask for a variable on their caller's behalf: the caller decides.
PASSING = ("shutil", "locale")


def _files(names: tuple[str, ...]) -> list[str]:
    """Where each of these modules or packages lives: a file, or a directory ending in os.sep."""
    found: list[str] = []
    for name in names:
        spec = importlib.util.find_spec(name)
        if spec is None:
            continue
        if spec.submodule_search_locations:
            found.extend(os.path.join(where, "") for where in spec.submodule_search_locations)
        elif spec.origin:
            found.append(spec.origin)
    return found


def watch_sources(watch: EnvWatch) -> None:
    """Tell the watch whose reads of the environment a hint never names, and who asks for
    someone else."""
    watch.ignored = tuple(_files(IGNORED))
    watch.passing = MAPPING_FILES.union(_files(PASSING))


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


def failure_text(longrepr: Any) -> str:
    """What a failure said, without the code around it: the message of the exception it failed
    with and of each exception chained to it (with pytest's explanation of a failed assert),
    or the whole of a failure that is no traceback (a failed doctest's example, expected, got).

    A file whose absence caused the failure is named here, in the ``FileNotFoundError`` that
    propagated or in the error raised in its place; a file a test's own code merely mentions is
    not, nor one an optional probe looked for."""
    chain = getattr(longrepr, "chain", None)
    if chain is None:
        crash = getattr(longrepr, "reprcrash", None)
        if crash is None:
            return str(longrepr)
        chain = [(longrepr.reprtraceback, crash, None)]  # --tb=native
    said = []
    for reprtraceback, reprcrash, _ in chain:
        if reprcrash is not None:
            said.append(reprcrash.message)
        entries = getattr(reprtraceback, "reprentries", ())
        lines = getattr(entries[-1], "lines", ()) if entries else ()
        if getattr(reprtraceback, "style", "") == "native":  # Python's own traceback text
            said.extend(line for line in "".join(lines).splitlines() if line[:1].strip())
        else:
            said.extend(line for line in lines if line.startswith("E "))
    return "\n".join(said)


class FailureHints:
    """Set up when the hermetic environment and the guards are both on."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.watch = env_watch(config)
        watch_sources(self.watch)
        self.machine = config.stash.get(AMBIENT_KEY, frozenset())  # the machine's names
        self.guard: Optional[Guard] = None  # the guards' runtime, once their session started
        self.sealed: Optional[Hermetic] = None
        self.hinted: Optional[str] = None
        self._spawns = 0  # the guard's spawns before this test
        self._cleared: Optional[tuple[str, ...]] = None
        self._watched: frozenset[str] = frozenset()
        self._fixed: dict[str, str] = {}  # the seal's value of each of FIXED it sets

    @classmethod
    def register(cls, config: pytest.Config) -> None:
        config.stash[NOTE_READS_KEY] = True
        per_test(config).add("hints", cls(config))

    def _reason(self, name: str) -> Optional[str]:
        seal = self.config.stash.get(SEAL_KEY, None)
        return None if seal is None else seal.reason(name)

    def _watch(self, cleared: tuple[str, ...]) -> frozenset[str]:
        """The variables to watch in a test whose seal removed ``cleared``: those declared
        (``clear-env``) and the locale and terminal ones that the seal removed or the machine
        set, and the zone, locale and terminal the seal sets."""
        seal = self.config.stash.get(SEAL_KEY, None)
        if seal is None:
            return frozenset()
        self._fixed = {name: value for name, value in seal.fixed if name in FIXED}
        watched = set(self._fixed)
        for name in self.machine.union(cleared):
            why = seal.reason(name) or ""
            if why.startswith("declared") or why in MACHINE_REASONS:
                watched.add(name)
        return frozenset(watched)

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
            self._cleared = sealed.cleared
            self._watched = self._watch(sealed.cleared)
        watch.names = self._watched
        if watch.misses:
            watch.misses = set()
        if watch.hits:
            watch.hits = set()

    def on_unseal(self) -> None:
        """The seal is off: stop watching (a teardown failure gets no hint)."""
        self.sealed = self.hinted = None
        if self.guard is not None:
            self.guard.home = None
        self.watch.names = frozenset()

    def reached(self, report: pytest.TestReport, sealed: Hermetic) -> Reached:
        """What the running test, failing with ``report``, reached for that its seal took away."""
        from truegreen.core.hints import Reached, home_relative, named_in  # on a failure only

        # The variables first: rendering the failure's text below reads some of them.
        cleared: list[tuple[str, str]] = []
        unset: list[str] = []
        watch = self.watch
        for name in sorted(watch.misses):
            if name in os.environ:
                continue  # set since: the test asked, then established it
            why = self._reason(name) or ""
            if why in MACHINE_REASONS:
                unset.append(name)
            else:
                cleared.append((name, why))
        fixed = tuple(
            (name, value)
            for name, value in self._fixed.items()
            if name in watch.hits and os.environ.get(name) == value
        )
        missing: list[str] = []
        git: tuple[str, ...] = ()
        guard = self.guard
        if guard is not None:
            absent = [path for path in guard.home_reads if not os.path.exists(path)]
            missing = home_relative(absent, str(sealed.home), os.sep)
            if missing:  # only a file whose absence reached the failure: not a probe's
                missing = named_in(missing, failure_text(report.longrepr), os.sep)
            git = tuple(
                spawn.verb or "?"
                for spawn in guard.spawns[self._spawns :]
                if spawn.anonymous and spawn.test == report.nodeid
            )
        return Reached(
            missing=tuple(missing),
            git=git,
            cleared=tuple(cleared),
            fixed=fixed,
            unset=tuple(unset),
        )

    def on_logreport(self, report: pytest.TestReport) -> None:
        """Add the hint to the first failing report of a sealed test, if it reached for any."""
        sealed = self.sealed
        if not report.failed or sealed is None or self.hinted == report.nodeid:
            return
        from truegreen.core.hints import hint_lines

        lines = hint_lines(self.reached(report, sealed))
        if lines:
            self.hinted = report.nodeid
            attach(report, lines)
