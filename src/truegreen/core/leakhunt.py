"""The leak hunt: the suite ambient and sealed, then reruns with factors put back.

Running pytest is the caller's business (:class:`Runs`; :mod:`truegreen.runner.leaks`).

Every rerun keeps the sealed run's order context: it runs the tests the sealed run ran, in
the order it ran them, up to the last test it asks about, so a test that depends on what ran
before it (the first user of a shared object that fills a cache) sees the same tests before
it as in the sealed run. A culprit the search ends on is printed only when a whole sealed run
with it applied gives the test its ambient outcome again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Callable, Optional, Protocol

from truegreen.core import events
from truegreen.core.errors import UsageError
from truegreen.core.factors import Factor, Machine
from truegreen.core.leaks import Subset, hunt
from truegreen.core.outcomes import Outcomes, differing

# How the write guard names a target under the real home (guards/writes.py, _LABELS).
REAL_HOME_SUFFIX = " (under the real home)"


class Runs(Protocol):
    """The runs a hunt asks for: the suite on the ambient machine, and sealed with some of
    the ambient ``factors`` put back; kept to ``only`` (node ids, in collection order) or run
    in exactly ``order`` when given."""

    def ambient(
        self, only: Optional[Sequence[str]] = None, order: Optional[Sequence[str]] = None
    ) -> Outcomes: ...

    def sealed(
        self,
        factors: Sequence[Factor] = (),
        only: Optional[Sequence[str]] = None,
        order: Optional[Sequence[str]] = None,
    ) -> Outcomes: ...

    def reached_through(self, path: str) -> Optional[Factor]:
        """The ambient factor (a dotfile, a variable) that names ``path`` or a directory
        above it, if any."""
        ...


Progress = Callable[[str], None]


@dataclass(frozen=True)
class HomeWrite:
    """A write into the real home that the ambient run's guard stopped, and the dotfile or
    variable that names the place (None when none of them does)."""

    path: str
    through: Optional[Factor]


@dataclass(frozen=True)
class Leak:
    """A test whose outcome the ambient machine changes, and the factors that change it
    (None when even every factor together does not: the cause is elsewhere, or a flake).

    ``confirmed`` is False when the search ended on ``culprit`` but a whole sealed run with it
    applied did not give the test its ambient outcome: a lead, not a culprit. ``home_write``
    is set instead of a search when the ambient run failed the test for writing into the real
    home, which no rerun in a temporary home can reproduce."""

    test: str
    ambient: str
    sealed: str
    culprit: Optional[tuple[Factor, ...]]
    confirmed: bool = True
    home_write: Optional[HomeWrite] = None
    # With no culprit: the test before it in the ambient run that failed for writing into
    # the real home (this one may depend on what that write would have left).
    after_home_write: Optional[str] = None


@dataclass(frozen=True)
class LeakReport:
    """What a hunt found, and what it cost."""

    tests: int
    factors: int
    untried: tuple[str, ...]
    reruns: int
    leaks: tuple[Leak, ...]
    # tests that differed once but behaved as ambient when the sealed run was repeated
    unsteady: tuple[str, ...] = ()


def _tests(n: int) -> str:
    return f"{n} test" if n == 1 else f"{n} tests"


def home_writes(outcomes: Outcomes) -> dict[str, str]:
    """Each test the run failed for a write into the real home: the first path it wrote."""
    found: dict[str, str] = {}
    for stream in outcomes.streams:
        for record in stream.records:
            if record.get(events.EVENT) != events.VIOLATION or record.get("kind") != "write":
                continue
            test, target = record.get("test"), str(record.get("target", ""))
            if not isinstance(test, str) or not target.endswith(REAL_HOME_SUFFIX):
                continue
            if record.get("mode") != "warn":
                found.setdefault(test, target[: -len(REAL_HOME_SUFFIX)])
    return found


# (only, order): a rerun kept to these tests in collection order, or run in exactly this order.
Selection = tuple[Optional[Sequence[str]], Optional[Sequence[str]]]


class _Context:
    """What a rerun runs so that each test it asks about has the tests before it that it had
    in the sealed run: the sealed run's tests in its order, up to the last one asked about.

    When a differing test ran in only one of the two runs (it was not collected in the other),
    an exact order could name a test a rerun does not collect; the rerun is then kept to the
    same tests in collection order instead, which is the sealed run's order unless a plugin
    reorders the suite."""

    def __init__(self, sealed: Outcomes, exact: bool) -> None:
        self.order = list(sealed.tests)  # one process: the order the tests ran in
        self.position = {test: i for i, test in enumerate(self.order)}
        self.exact = exact

    def ran(self, which: Sequence[str]) -> str:
        """How many tests a rerun asking about ``which`` runs, for its progress line."""
        only, order = self.prefix(which)
        return f"{_tests(len(which))} ({len(order or only or ())} run, to keep the order)"

    def prefix(self, which: Sequence[str]) -> Selection:
        """(only, order) for a rerun that asks about ``which``."""
        last = max((self.position[t] for t in which if t in self.position), default=-1)
        before = self.order[: last + 1]
        if self.exact:
            return None, before
        return [*before, *(t for t in which if t not in self.position)], None

    def whole(self) -> Selection:
        """(only, order) for the whole sealed run."""
        return (None, self.order) if self.exact else (None, None)


def find_leaks(
    runs: Runs,
    machine: Machine,
    progress: Progress = lambda line: None,
) -> LeakReport:
    """Run the suite ambient and sealed; for each test whose outcome differs, find the
    smallest set of the ``machine``'s ambient factors that gives it back its ambient
    outcome, and confirm it with a whole sealed run."""
    first = runs.ambient()
    progress(f"ambient run: {_tests(len(first.tests))}, exit {first.status}")
    if not first.tests:
        raise UsageError(
            f"truegreen leaks: expected the ambient run to run tests, found none (pytest exit "
            f"{first.status}); check PYTEST_ARGS"
        )
    second = runs.sealed()
    progress(f"sealed run: {_tests(len(second.tests))}, exit {second.status}")
    tests = differing(first, second)
    factors = machine.factors
    if not tests:
        return LeakReport(len(first.tests), len(factors), machine.untried, 0, ())
    progress(f"{_tests(len(tests))} differ")
    # A write into the real home the ambient run's guard stopped: the ambient run's own record
    # says why, and no rerun in a temporary home can do it again.
    written = home_writes(first)
    homebound = {
        test: HomeWrite(written[test], runs.reached_through(written[test]))
        for test in tests
        if test in written and first.of(test) in ("failed", "error")
    }
    tests = [test for test in tests if test not in homebound]
    exact = all(test in first.tests and test in second.tests for test in tests)
    context = _Context(second, exact)
    unsteady: tuple[str, ...] = ()
    count = 0
    if tests:
        # A flake differs once; a leak differs again when the sealed run is repeated.
        count = 1
        progress(f"rerun 1: {context.ran(tests)}, the sealed run repeated")
        only, order = context.prefix(tests)
        again = runs.sealed(only=only, order=order)
        unsteady = tuple(test for test in tests if again.of(test) != second.of(test))
        tests = [test for test in tests if test not in unsteady]
    if tests:
        progress(f"{_tests(len(tests))} differ again; searching {len(factors)} ambient factors")

    def oracle(subset: Subset, which: Sequence[str]) -> dict[str, bool]:
        nonlocal count
        count += 1
        progress(f"rerun {count}: {context.ran(which)}, {len(subset)} of {len(factors)} factors")
        chosen = [factors[i] for i in sorted(subset)]
        only, order = context.prefix(which)
        done = runs.sealed(chosen, only, order)
        return {test: done.of(test) == first.of(test) for test in which}

    found = hunt(len(factors), tests, oracle)[0] if tests else {}
    # No factor gives the ambient outcome back: before calling it a leak with no culprit, the
    # ambient run is repeated; a chance failure of the first one does not come again.
    lost = [test for test in tests if found[test] is None]
    if lost:
        count += 1
        ambient = _Context(first, exact)
        progress(f"rerun {count}: {ambient.ran(lost)}, the ambient run repeated")
        only, order = ambient.prefix(lost)
        again = runs.ambient(only, order)
        chance = tuple(test for test in lost if again.of(test) != first.of(test))
        unsteady += chance
        tests = [test for test in tests if test not in chance]
    # A culprit is printed only when a whole sealed run with it applied agrees.
    confirmed: dict[str, bool] = {}
    for suspects in sorted({s for s in found.values() if s is not None}, key=sorted):
        mine = [test for test in tests if found[test] == suspects]
        count += 1
        applied = f"{len(suspects)} factor" if len(suspects) == 1 else f"{len(suspects)} factors"
        progress(f"rerun {count}: the whole sealed run with {applied} applied, to confirm")
        only, order = context.whole()
        done = runs.sealed([factors[i] for i in sorted(suspects)], only, order)
        confirmed.update({test: done.of(test) == first.of(test) for test in mine})
    ran = {test: i for i, test in enumerate(first.tests)}  # the ambient run's order
    leaks = []
    for test in sorted([*tests, *homebound]):
        if test in homebound:
            leaks.append(Leak(test, first.of(test), second.of(test), None, True, homebound[test]))
            continue
        subset = found[test]
        culprit = None if subset is None else tuple(factors[i] for i in sorted(subset))
        sure = confirmed.get(test, True)
        before = [t for t in homebound if ran.get(t, len(ran)) < ran.get(test, -1)]
        writer = min(before, key=ran.__getitem__) if culprit is None and before else None
        leaks.append(Leak(test, first.of(test), second.of(test), culprit, sure, None, writer))
    return LeakReport(
        len(first.tests), len(factors), machine.untried, count, tuple(leaks), unsteady
    )
