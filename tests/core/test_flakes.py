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


# -- the items of one document ---------------------------------------------------------------

DOC = ["m.py::m.a", "m.py::m.b", "m.py::m.c"]  # the doctests of m.py, in their order
SUITE = ["t.py::test_x", *DOC, "t.py::test_y", "t.py::test_z"]
DOCUMENTS = dict.fromkeys(DOC, "DoctestModule:m.py")


def test_the_orders_move_a_document_as_one_block_in_its_own_order() -> None:
    """Ablation: replace `flat(reversed(blocks))` with `list(reversed(flat(blocks)))` in
    `src/truegreen/core/flakes.py`."""
    units = flakes.Units(SUITE, DOCUMENTS)
    assert units.blocks == [("t.py::test_x",), tuple(DOC), ("t.py::test_y",), ("t.py::test_z",)]
    found = flakes.orders(SUITE, seed=7, runs=8, units=units)
    assert found[:2] == [SUITE, ["t.py::test_z", "t.py::test_y", *DOC, "t.py::test_x"]]
    assert len({tuple(order) for order in found}) > 2  # premise: the shuffles do shuffle
    for order in found:
        start = order.index(DOC[0])
        assert order[start : start + 3] == DOC


def test_without_documents_a_seed_gives_the_orders_it_always_gave() -> None:
    ids = [f"t.py::test_{n}" for n in range(6)]
    shuffled = list(ids)
    __import__("random").Random(5).shuffle(shuffled)
    assert flakes.orders(ids, seed=5, runs=3, units=flakes.Units(ids, {}))[2] == shuffled


def test_a_document_item_run_without_its_earlier_items_is_not_observed() -> None:
    """Under xdist a document can be scattered over the workers; the item that ran without its
    earlier items ran in a way it is not built to, so its fate is left out.

    Ablation: replace `not lead or tuple(before[-len(lead) :]) == lead` with `True` in
    `src/truegreen/core/flakes.py`."""
    units = flakes.Units(SUITE, DOCUMENTS)
    gw0 = stream((DOC[0], "passed"), (DOC[1], "passed"), ("t.py::test_y", "passed"))
    gw1 = stream(("t.py::test_x", "passed"), (DOC[2], "failed"))
    seen = flakes.observe(1, [gw0, gw1], units)
    assert [o.test for o in flakes.observe(1, [gw0, gw1])] == [  # premise: all ran
        DOC[0], DOC[1], "t.py::test_y", "t.py::test_x", DOC[2]
    ]  # fmt: skip
    assert [o.test for o in seen] == [DOC[0], DOC[1], "t.py::test_y", "t.py::test_x"]


def test_the_earlier_items_of_its_document_are_never_culprits_of_an_item() -> None:
    """``m.c`` reads what ``m.a`` leaves, by design; ``test_y`` really pollutes ``m.c``. Each
    run of ``m.c`` runs ``m.a`` and ``m.b`` just before it, and the culprit is ``test_y``.

    Ablation: replace `fails([*before, *lead, test])` with `fails([*before, test])` in
    `src/truegreen/core/flakes.py`."""
    units = flakes.Units(SUITE, DOCUMENTS)

    def fates(order: Sequence[str]) -> dict[str, bool]:
        found = {}
        for position, test in enumerate(order):
            before = order[:position]
            found[test] = test == DOC[2] and (DOC[0] not in before or "t.py::test_y" in before)
        return found

    ran: list[list[str]] = []

    def fails(order: Sequence[str]) -> bool:
        ran.append(list(order))
        return fates(order)[order[-1]]

    orders = flakes.orders(SUITE, seed=3, runs=2, units=units)
    seen = [Observation(n, t, tuple(o[:i]), fates(o)[t]) for n, o in enumerate(orders)
            for i, t in enumerate(o)]  # fmt: skip
    assert flakes.varying(seen) == [DOC[2]]  # premise: test_y ran before it in one run only
    finding = flakes.diagnose(DOC[2], seen, fails, units)
    assert (finding.kind, finding.culprits) == (flakes.VICTIM, ("t.py::test_y",))
    assert finding.command.endswith(f" t.py::test_y {DOC[0]} {DOC[1]} {DOC[2]}")
    assert all(order[-3:] == DOC for order in ran)
    victim = flakes.culprit_of(DOC[2], SUITE, fails, units)
    assert (victim.kind, victim.culprits) == (flakes.VICTIM, ("t.py::test_y",))


def test_units_cut_a_list_into_documents_and_single_tests() -> None:
    units = flakes.Units(SUITE, DOCUMENTS)
    cut = units.cut(["t.py::test_x", DOC[1], DOC[2], "t.py::test_y", DOC[0]])
    assert cut == [("t.py::test_x",), (DOC[1], DOC[2]), ("t.py::test_y",), (DOC[0],)]
    assert units.lead(DOC[2]) == (DOC[0], DOC[1])
    assert units.lead("t.py::test_x") == ()
    assert units.own(DOC[0]) == frozenset(DOC)


# -- a violation that whichever test runs first triggers ---------------------------------------


def violating(*tests: tuple[str, str, str]) -> Stream:
    """A stream where each (test, outcome, violation mode) ran; a mode of "" is no violation."""
    found = stream(*((test, outcome) for test, outcome, _ in tests))
    for test, _, mode in tests:
        if mode:
            record = {"event": "violation", "t": 0.0, "kind": "write", "test": test,
                      "where": test, "operation": "open for writing", "target": "/home/d/.c",
                      "site": "lazy.py:9", "blocked": True, "pid": 1}  # fmt: skip
            found.records.append({**record, "mode": mode} if mode != "fail" else record)
    return found


def test_a_violation_in_warn_mode_fails_nothing_and_is_not_counted() -> None:
    """Ablation: replace `record.get("mode") != "warn"` with `True` in
    `src/truegreen/core/flakes.py`."""
    seen = flakes.observe(
        0, [violating(("t.py::a", "failed", "fail"), ("t.py::b", "passed", "warn"))]
    )
    assert [o.test for o in seen] == ["t.py::a", "t.py::b"]  # premise: both ran
    assert seen[0].violations == ("write",)
    assert seen[0].violation == "write: blocked open for writing /home/d/.c at lazy.py:9"
    assert seen[1].violations == ()


def test_a_test_that_fails_by_a_violation_only_when_it_runs_first_is_a_violation() -> None:
    """Ablation: replace `alone_fails and failing and all(o.violations for o in failing)` with
    `alone_fails and failing` in `src/truegreen/core/flakes.py`."""
    first = flakes.observe(0, [violating(("t.py::a", "failed", "fail"), ("t.py::b", "passed", ""))])
    second = flakes.observe(
        1, [violating(("t.py::b", "failed", "fail"), ("t.py::a", "passed", ""))]
    )
    finding = flakes.diagnose("t.py::a", first + second, lambda order: len(order) == 1)
    assert finding.kind == flakes.VIOLATION
    assert finding.culprits == ("t.py::b",)  # it triggers the violation when it runs first
    assert finding.note == (
        "fails in some orders because t.py::a triggers a write violation when it runs first: "
        "write: blocked open for writing /home/d/.c at lazy.py:9"
    )
    # A brittle test that fails without a violation stays brittle.
    plain = flakes.observe(0, [violating(("t.py::a", "failed", ""), ("t.py::b", "passed", ""))])
    plain += flakes.observe(1, [violating(("t.py::b", "passed", ""), ("t.py::a", "passed", ""))])
    brittle = flakes.diagnose("t.py::a", plain, lambda order: len(order) == 1)
    assert (brittle.kind, brittle.culprits) == (flakes.BRITTLE, ("t.py::b",))
