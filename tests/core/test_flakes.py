"""Flake hunting logic: seeded orders, observations, classification and bisection by an oracle."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from truegreen.core import flakes
from truegreen.core.flakes import Observation
from truegreen.core.metrics import Stream

IDS = [f"test_m.py::test_{n}" for n in range(10)]


class World:
    """A model suite: ``victim`` fails after ``polluter``; ``brittle`` passes only after
    ``setter``; ``coin`` fails on the executions listed in ``coin_fails``."""

    def __init__(self, coin_fails: Sequence[int] = ()) -> None:
        self.polluter, self.victim = IDS[2], IDS[7]
        self.setter, self.brittle = IDS[8], IDS[4]
        self.coin, self.coin_fails, self.coin_runs = IDS[5], set(coin_fails), 0
        self.calls = 0

    def run(self, order: Sequence[str]) -> dict[str, bool]:
        """Each test's fate (failed?) when ``order`` runs in one process."""
        fates = {}
        for position, test in enumerate(order):
            before = set(order[:position])
            if test == self.victim:
                fates[test] = self.polluter in before
            elif test == self.brittle:
                fates[test] = self.setter not in before
            elif test == self.coin:
                fates[test] = self.coin_runs in self.coin_fails
                self.coin_runs += 1
            else:
                fates[test] = False
        return fates

    def fails(self, order: Sequence[str]) -> bool:
        self.calls += 1
        return self.run(order)[order[-1]]

    def observe(self, orders: list[list[str]]) -> list[Observation]:
        found = []
        for number, order in enumerate(orders):
            fates = self.run(order)
            found += [Observation(number, t, tuple(order[:i]), fates[t]) for i, t in
                      enumerate(order)]  # fmt: skip
        return found


def stream(*tests: tuple[str, str]) -> Stream:
    records: list[dict[str, Any]] = [{"v": 1, "event": "process"}]
    for test, outcome in tests:
        records += [
            {"event": "test_start", "test": test, "t": 0.0},
            {"event": "phase", "test": test, "phase": "call", "outcome": outcome, "duration": 0},
            {"event": "test_end", "test": test, "t": 0.0},
        ]
    return Stream(Path("worker.jsonl"), records)


def test_orders_start_with_collection_order_and_its_reverse_then_shuffle_from_the_seed() -> None:
    found = flakes.orders(IDS, seed=7, runs=5)
    assert found[:2] == [IDS, IDS[::-1]]
    assert all(sorted(order) == sorted(IDS) for order in found)
    assert len({tuple(order) for order in found}) == 5


def test_the_same_seed_gives_the_same_orders_and_another_seed_others() -> None:
    assert flakes.orders(IDS, seed=7, runs=6) == flakes.orders(IDS, seed=7, runs=6)
    assert flakes.orders(IDS, seed=7, runs=6)[2:] != flakes.orders(IDS, seed=8, runs=6)[2:]
    assert flakes.orders(IDS, seed=7, runs=2) == [IDS, IDS[::-1]]


def test_observations_follow_each_process_in_its_own_order() -> None:
    gw0 = stream(("a.py::t1", "passed"), ("a.py::t2", "failed"))
    gw1 = stream(("b.py::t3", "skipped"), ("b.py::t4", "passed"))
    expected = [
        Observation(3, "a.py::t1", (), False),
        Observation(3, "a.py::t2", ("a.py::t1",), True),
        Observation(3, "b.py::t3", (), False),
        Observation(3, "b.py::t4", ("b.py::t3",), False),
    ]
    assert flakes.observe(3, [gw0, gw1]) == expected


def test_a_setup_error_counts_as_failed_and_a_test_that_never_ended_too() -> None:
    broken = stream(("a.py::t1", "passed"))
    broken.records.append(
        {"event": "phase", "test": "a.py::t1", "phase": "teardown", "outcome": "failed"}
    )
    assert flakes.failed_in("a.py::t1", [broken])
    assert flakes.failed_in("a.py::never", [broken])
    assert not flakes.failed_in("b.py::t4", [stream(("b.py::t4", "passed"))])


def test_a_test_ended_after_its_setup_passed_counts_as_failed() -> None:
    """Ablation: replace `outcome is None or outcome in BAD or test in summary.unfinished` with
    `outcome is None or outcome in BAD` in `src/truegreen/core/flakes.py`."""
    hung = stream(("a.py::t1", "passed"))
    hung.records += [
        {"event": "test_start", "test": "a.py::hangs", "t": 1.0},
        {"event": "phase", "test": "a.py::hangs", "phase": "setup", "outcome": "passed"},
    ]
    assert not flakes.failed_in("a.py::t1", [hung])  # premise: the finished test passed
    assert flakes.failed_in("a.py::hangs", [hung])
    assert flakes.observe(0, [hung])[1] == Observation(0, "a.py::hangs", ("a.py::t1",), True)


def test_a_test_with_one_fate_does_not_vary() -> None:
    """Ablation: replace `len(fates) == 2` with `len(fates) >= 1` in
    `src/truegreen/core/flakes.py`."""
    seen = [
        Observation(0, "steady", (), False),
        Observation(1, "steady", ("x",), False),
        Observation(0, "broken", (), True),
        Observation(1, "broken", ("x",), True),
        Observation(1, "flaky", (), True),
        Observation(2, "flaky", (), False),
    ]
    assert {o.test for o in seen} == {"steady", "broken", "flaky"}  # premise: all were seen
    assert flakes.varying(seen) == ["flaky"]
    assert flakes.always_failing(seen) == ["broken"]


def test_suspects_ran_before_every_failure_and_never_before_a_pass() -> None:
    seen = [
        Observation(0, "v", ("a", "p", "b", "c"), True),
        Observation(1, "v", ("c", "p", "d"), True),
        Observation(2, "v", ("c", "e"), False),
    ]
    assert flakes.suspects("v", seen, effect=True) == ["p"]
    assert flakes.suspects("v", seen, effect=False) == ["e"]


def test_bisect_finds_the_one_polluter() -> None:
    candidates = [f"t{n}" for n in range(100)]
    calls: list[Sequence[str]] = []

    def keeps(before: Sequence[str]) -> bool:
        calls.append(before)
        return "t37" in before

    assert flakes.bisect(candidates, keeps) == ["t37"]
    assert len(calls) <= math.ceil(math.log2(100)) + 1


@given(n=st.integers(min_value=1, max_value=2000), data=st.data(), checked=st.booleans())
def test_bisect_finds_one_polluter_among_n_in_about_log2_n_runs(
    n: int, data: st.DataObject, checked: bool
) -> None:
    culprit = data.draw(st.integers(min_value=0, max_value=n - 1))
    calls = 0

    def keeps(before: Sequence[str]) -> bool:
        nonlocal calls
        calls += 1
        return f"t{culprit}" in before

    found = flakes.bisect([f"t{i}" for i in range(n)], keeps, checked=checked)
    assert found == [f"t{culprit}"]
    assert calls <= math.ceil(math.log2(n)) + 1


@given(n=st.integers(min_value=2, max_value=300), data=st.data())
def test_bisect_keeps_two_culprits_that_only_pollute_together(n: int, data: st.DataObject) -> None:
    first, second = sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=2, max_size=2)))
    needed = {f"t{first}", f"t{second}"}

    def keeps(before: Sequence[str]) -> bool:
        return needed <= set(before)

    found = flakes.bisect([f"t{i}" for i in range(n)], keeps)
    assert needed <= set(found)
    assert keeps(found)


def test_bisect_finds_nothing_when_no_candidate_has_the_effect() -> None:
    """Ablation: replace `current if checked or keeps(current) else []` with `current` in
    `src/truegreen/core/flakes.py`."""
    candidates = [f"t{n}" for n in range(9)]
    assert flakes.bisect(candidates, lambda before: "t3" in before, checked=False) == ["t3"]
    assert flakes.bisect(candidates, lambda before: False, checked=False) == []


def test_it_classifies_the_victim_the_brittle_test_and_the_coin_and_blames_no_other() -> None:
    world = World(coin_fails=[1])
    seen = world.observe(flakes.orders(IDS, seed=1, runs=4))
    varying = flakes.varying(seen)
    assert sorted(varying) == sorted([world.victim, world.brittle, world.coin])
    found = {t: flakes.diagnose(t, seen, world.fails) for t in varying}
    assert found[world.victim].kind == flakes.VICTIM
    assert found[world.victim].culprits == (world.polluter,)
    assert found[world.brittle].kind == flakes.BRITTLE
    assert found[world.brittle].culprits == (world.setter,)
    assert found[world.coin].kind == flakes.NON_ORDER
    assert found[world.coin].culprits == ()
    expected = (
        "python -m pytest -p no:randomly -p no:cacheprovider test_m.py::test_2 test_m.py::test_7"
    )
    assert found[world.victim].command == expected


def test_the_runs_narrow_the_suspects_before_the_bisection() -> None:
    """Every failing run's prefix holds the polluter; no passing run's does. What is left is
    bisected: the victim alone, a check of the suspects, then about log2 of them."""
    world = World()
    seen = world.observe(flakes.orders(IDS, seed=1, runs=4))
    suspects = flakes.suspects(world.victim, seen, effect=True)
    shortest = min(len(o.before) for o in seen if o.test == world.victim and o.failed)
    assert world.polluter in suspects
    assert len(suspects) < shortest
    finding = flakes.diagnose(world.victim, seen, world.fails)
    assert finding.culprits == (world.polluter,)
    assert world.calls <= 2 + math.ceil(math.log2(len(suspects))) + 1


def test_a_victim_with_nothing_before_it_when_it_failed_is_non_order() -> None:
    seen = [Observation(0, "v", (), True), Observation(1, "v", ("a",), False)]
    found = flakes.diagnose("v", seen, lambda order: False)
    assert (found.kind, found.note) == (
        flakes.NON_ORDER,
        "it differed between two runs with nothing before it",
    )


def test_culprit_of_a_named_victim_or_brittle_test_among_the_others() -> None:
    world = World()
    victim = flakes.culprit_of(world.victim, IDS, world.fails)
    assert (victim.kind, victim.culprits) == (flakes.VICTIM, (world.polluter,))
    brittle = flakes.culprit_of(world.brittle, IDS, world.fails)
    assert (brittle.kind, brittle.culprits) == (flakes.BRITTLE, (world.setter,))
    steady = flakes.culprit_of(IDS[0], IDS, world.fails)
    assert (steady.kind, steady.note) == (
        flakes.NOT_FOUND,
        "it passes alone and after the 9 other tests",
    )


def test_the_command_quotes_parametrized_ids() -> None:
    found = flakes.command(["t.py::test_p[a b]"], "t.py::test_v")
    assert found == (
        "python -m pytest -p no:randomly -p no:cacheprovider 't.py::test_p[a b]' t.py::test_v"
    )


def test_the_json_document_carries_its_format_version() -> None:
    finding = flakes.Finding("v", flakes.VICTIM, 1, 4, ("p",), "", "cmd")
    report = flakes.Report(5, 4, 10, (finding,), ("b",), 9)
    assert flakes.document(report) == {
        "format": 1,
        "seed": 5,
        "runs": 4,
        "tests": 10,
        "pytest_runs": 9,
        "flaky": [
            {
                "test": "v",
                "kind": "victim",
                "culprits": ["p"],
                "command": "cmd",
                "failed_runs": 1,
                "observed_runs": 4,
                "note": "",
                "violations": [],
            }
        ],
        "always_failing": ["b"],
        "notes": [],
    }
