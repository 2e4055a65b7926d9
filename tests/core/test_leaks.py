"""The culprit search over a fake oracle: minimal culprits, and reruns that grow with the log."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Callable

from hypothesis import given
from hypothesis import strategies as st

from truegreen.core.leaks import Search, Subset, culprit, ddmin, hunt

Flips = Callable[[Subset], bool]


def drive(search: Search, flips: Flips) -> tuple[Subset, int]:
    """Run one search against ``flips``; (its culprit, the subsets it asked about)."""
    asked = 0
    try:
        subset = next(search)
        while True:
            asked += 1
            subset = search.send(flips(subset))
    except StopIteration as done:
        return done.value, asked


def needs(*culprits: frozenset[int]) -> Flips:
    """Monotone: a subset flips the test when it holds every factor of any one culprit."""
    return lambda subset: any(c <= subset for c in culprits)


def one_minimal(found: Subset, flips: Flips) -> bool:
    return flips(found) and not any(flips(found - {factor}) for factor in found)


def test_one_culprit_among_two_hundred_takes_one_rerun_per_halving() -> None:
    halvings = math.ceil(math.log2(200))
    for factor in (0, 137, 199):
        found, asked = drive(culprit(range(200)), needs(frozenset({factor})))
        assert found == frozenset({factor})
        assert halvings <= asked <= halvings + 1  # at most one more to confirm


@given(st.integers(1, 300), st.data())
def test_a_single_culprit_is_found_within_log2_plus_one(n: int, data: st.DataObject) -> None:
    factor = data.draw(st.integers(0, n - 1))
    found, asked = drive(culprit(range(n)), needs(frozenset({factor})))
    assert found == frozenset({factor})
    assert asked <= math.ceil(math.log2(n)) + 1


@given(st.integers(2, 120), st.data())
def test_a_culprit_of_several_factors_is_found_whole(n: int, data: st.DataObject) -> None:
    together = data.draw(st.sets(st.integers(0, n - 1), min_size=2, max_size=3))
    found, _ = drive(culprit(range(n)), needs(frozenset(together)))
    assert found == frozenset(together)


@given(st.integers(1, 80), st.data())
def test_with_several_possible_culprits_the_one_found_is_minimal_and_flips(
    n: int, data: st.DataObject
) -> None:
    culprits = data.draw(
        st.lists(st.frozensets(st.integers(0, n - 1), min_size=1, max_size=3), min_size=1,
                 max_size=4)
    )  # fmt: skip
    flips = needs(*culprits)
    found, _ = drive(culprit(range(n)), flips)
    assert one_minimal(found, flips)


@given(st.integers(1, 40), st.integers(0, 2**32), st.floats(0.05, 0.6))
def test_even_factors_that_interfere_give_a_minimal_culprit_that_flips(
    n: int, seed: int, rate: float
) -> None:
    """Not monotone: any subset may flip or not; only the premises hold."""
    everything = frozenset(range(n))

    def flips(subset: Subset) -> bool:
        if subset == everything:
            return True
        return bool(subset) and random.Random(f"{seed}:{sorted(subset)}").random() < rate

    found, _ = drive(culprit(range(n)), flips)
    assert one_minimal(found, flips)


def test_ddmin_alone_finds_a_pair_that_bisection_splits() -> None:
    found, asked = drive(ddmin(range(16)), needs(frozenset({3, 12})))
    assert found == frozenset({3, 12})
    assert asked > 0


class Machine:
    """A fake suite: each test flips under its own monotone rule; counts the reruns."""

    def __init__(self, rules: Mapping[str, Flips]) -> None:
        self.rules = rules
        self.runs: list[tuple[Subset, tuple[str, ...]]] = []

    def __call__(self, subset: Subset, tests: Sequence[str]) -> dict[str, bool]:
        self.runs.append((subset, tuple(tests)))
        return {test: self.rules[test](subset) for test in tests}


def test_tests_that_share_a_culprit_share_every_rerun() -> None:
    shared = needs(frozenset({41}))
    alone = Machine({"t1": shared})
    found_alone, reruns_alone = hunt(120, ["t1"], alone)
    together = Machine({"t1": shared, "t2": shared, "t3": shared})
    found, reruns = hunt(120, ["t1", "t2", "t3"], together)
    assert found_alone == {"t1": frozenset({41})}
    assert found == {t: frozenset({41}) for t in ("t1", "t2", "t3")}
    assert reruns == reruns_alone == len(together.runs)
    assert all(tests == ("t1", "t2", "t3") for _, tests in together.runs)


def test_each_test_gets_its_own_culprit_and_the_first_rerun_applies_everything() -> None:
    machine = Machine(
        {"a": needs(frozenset({2})), "b": needs(frozenset({150})), "c": needs(frozenset({77}))}
    )
    found, reruns = hunt(200, ["a", "b", "c"], machine)
    assert found == {"a": frozenset({2}), "b": frozenset({150}), "c": frozenset({77})}
    assert machine.runs[0] == (frozenset(range(200)), ("a", "b", "c"))
    assert reruns == len(machine.runs) <= 3 * (math.ceil(math.log2(200)) + 1) + 1


@given(st.integers(2, 400), st.data())
def test_reruns_for_one_culprit_stay_within_twice_log2_plus_four(
    n: int, data: st.DataObject
) -> None:
    factor = data.draw(st.integers(0, n - 1))
    found, reruns = hunt(n, ["t"], Machine({"t": needs(frozenset({factor}))}))
    assert found == {"t": frozenset({factor})}
    assert reruns <= 2 * math.log2(n) + 4
    assert reruns <= 1 + math.ceil(math.log2(n)) + 1  # everything, the halvings, a confirmation


def test_a_test_that_no_factor_flips_is_blamed_on_nothing() -> None:
    """Ablation: delete `found[test] = None` in `src/truegreen/core/leaks.py`."""
    machine = Machine({"elsewhere": lambda subset: False, "leak": needs(frozenset({5}))})
    found, reruns = hunt(30, ["elsewhere", "leak"], machine)
    assert machine.rules["leak"](frozenset(range(30)))  # premise: the search ran at all
    assert found == {"elsewhere": None, "leak": frozenset({5})}
    assert all("elsewhere" not in tests for _, tests in machine.runs[1:])
    assert reruns == len(machine.runs)


def test_without_factors_nothing_is_rerun() -> None:
    machine = Machine({"t": lambda subset: True})
    assert hunt(0, ["t"], machine) == ({"t": None}, 0)
    assert machine.runs == []
