"""The leak hunt: the suite ambient and sealed, then targeted reruns with factors put back.

Running pytest is the caller's business (:class:`Runs`; :mod:`truegreen.runner.leaks`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Callable, Optional, Protocol

from truegreen.core.errors import UsageError
from truegreen.core.factors import Factor, Machine
from truegreen.core.leaks import Subset, hunt
from truegreen.core.outcomes import Outcomes, differing


class Runs(Protocol):
    """The runs a hunt asks for: the suite on the ambient machine, and sealed with some of
    the ambient ``factors`` put back, kept to ``only`` (node ids) when given."""

    def ambient(self) -> Outcomes: ...

    def sealed(
        self, factors: Sequence[Factor] = (), only: Optional[Sequence[str]] = None
    ) -> Outcomes: ...


Progress = Callable[[str], None]


@dataclass(frozen=True)
class Leak:
    """A test whose outcome the ambient machine changes, and the factors that change it
    (None when even every factor together does not: the cause is elsewhere, or a flake)."""

    test: str
    ambient: str
    sealed: str
    culprit: Optional[tuple[Factor, ...]]


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


def find_leaks(
    runs: Runs,
    machine: Machine,
    progress: Progress = lambda line: None,
) -> LeakReport:
    """Run the suite ambient and sealed; for each test whose outcome differs, find the
    smallest set of the ``machine``'s ambient factors that gives it back its ambient
    outcome, rerunning only the differing tests."""
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
    # A flake differs once; a leak differs again when the sealed run is repeated.
    progress(f"{_tests(len(tests))} differ")
    progress(f"rerun 1: {_tests(len(tests))}, the sealed run repeated")
    again = runs.sealed(only=tests)
    unsteady = tuple(test for test in tests if again.of(test) != second.of(test))
    tests = [test for test in tests if test not in unsteady]
    if not tests:
        return LeakReport(len(first.tests), len(factors), machine.untried, 1, (), unsteady)
    progress(f"{_tests(len(tests))} differ again; searching {len(factors)} ambient factors")
    count = 1

    def oracle(subset: Subset, which: Sequence[str]) -> dict[str, bool]:
        nonlocal count
        count += 1
        progress(f"rerun {count}: {_tests(len(which))}, {len(subset)} of {len(factors)} factors")
        chosen = [factors[i] for i in sorted(subset)]
        done = runs.sealed(chosen, which)
        return {test: done.of(test) == first.of(test) for test in which}

    found, searched = hunt(len(factors), tests, oracle)
    leaks = []
    for test in tests:
        subset = found[test]
        culprit = None if subset is None else tuple(factors[i] for i in sorted(subset))
        leaks.append(Leak(test, first.of(test), second.of(test), culprit))
    reruns = searched + 1
    return LeakReport(
        len(first.tests), len(factors), machine.untried, reruns, tuple(leaks), unsteady
    )
