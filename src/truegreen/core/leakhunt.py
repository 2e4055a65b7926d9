"""The leak hunt: the suite ambient and sealed, then targeted reruns with factors put back."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from truegreen.core.errors import UsageError
from truegreen.core.factors import Factor, ambient_factors, apply
from truegreen.core.leaks import Subset, hunt
from truegreen.core.outcomes import Outcomes, differing, run_outcomes

# (ambient environment, fresh home) -> the sealed environment, as ``truegreen run`` builds it.
Seal = Callable[[Mapping[str, str], str], dict[str, str]]
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


def _sealed_run(
    pytest_args: Sequence[str],
    ambient: Mapping[str, str],
    home: Path,
    cwd: Path,
    seal: Seal,
    factors: Sequence[Factor] = (),
    only: Optional[Sequence[str]] = None,
) -> Outcomes:
    fresh = tempfile.mkdtemp(prefix="truegreen-leaks-home-")
    try:
        env = apply(factors, seal(ambient, fresh), ambient, home)
        return run_outcomes(pytest_args, env, cwd, only=only)
    finally:
        shutil.rmtree(fresh, ignore_errors=True)


def find_leaks(
    pytest_args: Sequence[str],
    ambient: Mapping[str, str],
    home: Path,
    cwd: Path,
    seal: Seal,
    progress: Progress = lambda line: None,
) -> LeakReport:
    """Run the suite in ``ambient`` (whose home is ``home``) and sealed; for each test whose
    outcome differs, find the smallest set of ambient factors that gives it back its
    ambient outcome, rerunning only the differing tests."""
    first = run_outcomes(pytest_args, ambient, cwd)
    progress(f"ambient run: {_tests(len(first.tests))}, exit {first.status}")
    if not first.tests:
        raise UsageError(
            f"truegreen leaks: expected the ambient run to run tests, found none (pytest exit "
            f"{first.status}); check PYTEST_ARGS"
        )
    second = _sealed_run(pytest_args, ambient, home, cwd, seal)
    progress(f"sealed run: {_tests(len(second.tests))}, exit {second.status}")
    tests = differing(first, second)
    # The sealed home's path is not a factor (its contents are), so any path stands in.
    machine = ambient_factors(ambient, seal(ambient, str(home)), home)
    factors = machine.factors
    if not tests:
        return LeakReport(len(first.tests), len(factors), machine.untried, 0, ())
    # A flake differs once; a leak differs again when the sealed run is repeated.
    progress(f"{_tests(len(tests))} differ")
    progress(f"rerun 1: {_tests(len(tests))}, the sealed run repeated")
    again = _sealed_run(pytest_args, ambient, home, cwd, seal, only=tests)
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
        done = _sealed_run(pytest_args, ambient, home, cwd, seal, chosen, which)
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
