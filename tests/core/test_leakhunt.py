"""The hunt over fake runs: reruns keep the sealed run's order, culprits are confirmed by a
whole sealed run, and a write into the real home is named from the ambient run's record."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Callable, Optional

from truegreen.core import events
from truegreen.core.factors import Factor, Machine
from truegreen.core.leakhunt import HomeWrite, Leak, find_leaks, home_writes
from truegreen.core.metrics import Stream
from truegreen.core.outcomes import Outcomes

FACTORS = tuple(Factor("variable", name) for name in ("LOGNAME", "MYAPP_SOURCE", "NOISE"))
ORDER = ["t.py::a", "t.py::b", "t.py::c", "t.py::d", "t.py::e"]
# (factor names applied, the tests run, whether the run was the whole suite) -> outcomes
Rule = Callable[[set[str], list[str], bool], Mapping[str, str]]


def violation(test: str, target: str, mode: Optional[str] = None) -> dict[str, Any]:
    record: dict[str, Any] = {events.EVENT: events.VIOLATION, "kind": "write", "test": test,
                              "target": target, "blocked": mode is None}  # fmt: skip
    return record if mode is None else {**record, "mode": mode}


class FakeRuns:
    """An ambient run and sealed runs whose outcomes a rule decides; records every call."""

    def __init__(
        self,
        ambient: Mapping[str, str],
        rule: Rule,
        records: Sequence[dict[str, Any]] = (),
        again: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.first = Outcomes(1, dict(ambient), (Stream(Path("ambient"), list(records)),))
        self.again = dict(ambient if again is None else again)  # a repeated ambient run's
        self.rule = rule
        self.calls: list[dict[str, Any]] = []
        self.ambient_calls: list[dict[str, Any]] = []

    def ambient(
        self, only: Optional[Sequence[str]] = None, order: Optional[Sequence[str]] = None
    ) -> Outcomes:
        if only is None and order is None and not self.ambient_calls:
            self.ambient_calls.append({})
            return self.first
        self.ambient_calls.append({"only": only, "order": order})
        ran = list(order if order is not None else only if only is not None else ORDER)
        return Outcomes(1, {test: self.again[test] for test in ran if test in self.again})

    def sealed(
        self,
        factors: Sequence[Factor] = (),
        only: Optional[Sequence[str]] = None,
        order: Optional[Sequence[str]] = None,
    ) -> Outcomes:
        self.calls.append({"factors": [f.name for f in factors], "only": only, "order": order})
        ran = list(order if order is not None else only if only is not None else ORDER)
        done = self.rule({f.name for f in factors}, ran, ran == ORDER)
        return Outcomes(0, {test: done[test] for test in ran if test in done})

    def reached_through(self, path: str) -> Optional[Factor]:
        return Factor("home", ".replayrc") if path.startswith("/home/dev/replays/") else None


def outcomes(failing: set[str]) -> dict[str, str]:
    return {test: "failed" if test in failing else "passed" for test in ORDER}


def test_every_rerun_runs_the_sealed_order_up_to_the_last_test_it_asks_about() -> None:
    def rule(applied: set[str], ran: list[str], whole: bool) -> Mapping[str, str]:
        return outcomes({"t.py::c"} if "MYAPP_SOURCE" in applied else set())

    runs = FakeRuns(outcomes({"t.py::c"}), rule)
    report = find_leaks(runs, Machine(FACTORS, ()))
    assert report.leaks == (Leak("t.py::c", "failed", "passed", (FACTORS[1],)),)
    *reruns, confirm = runs.calls[1:]
    assert all(call["order"] == ORDER[:3] for call in reruns)
    assert confirm == {"factors": ["MYAPP_SOURCE"], "only": None, "order": ORDER}
    assert report.reruns == len(runs.calls) - 1


def test_a_test_not_collected_in_one_run_is_rerun_in_collection_order_with_those_before_it() -> (
    None
):
    """An exact order would name a test a rerun may not collect."""
    ambient = {t: o for t, o in outcomes(set()).items() if t != "t.py::b"}

    def rule(applied: set[str], ran: list[str], whole: bool) -> Mapping[str, str]:
        return ambient if "NOISE" in applied else outcomes(set())

    runs = FakeRuns(ambient, rule)
    report = find_leaks(runs, Machine(FACTORS, ()))
    assert report.leaks == (Leak("t.py::b", "missing", "passed", (FACTORS[2],)),)
    assert runs.calls[1] == {"factors": [], "only": ORDER[:2], "order": None}
    assert runs.calls[-1] == {"factors": ["NOISE"], "only": None, "order": None}


def test_a_culprit_the_whole_sealed_run_does_not_confirm_is_not_blamed() -> None:
    """A victim that flips in every rerun the search makes, whatever is applied, and not in
    the whole run: the search ends on the first factor, which the whole run does not confirm.

    Ablation: replace `confirmed.get(test, True)` with `True` in
    `src/truegreen/core/leakhunt.py`."""

    def rule(applied: set[str], ran: list[str], whole: bool) -> Mapping[str, str]:
        return outcomes({"t.py::b"} if applied and not whole else set())

    runs = FakeRuns(outcomes({"t.py::b"}), rule)
    report = find_leaks(runs, Machine(FACTORS, ()))
    (leak,) = report.leaks
    assert leak.culprit == (FACTORS[0],)  # premise: the search ended on LOGNAME
    assert not leak.confirmed


def test_a_write_into_the_real_home_is_named_and_not_searched() -> None:
    """Ablation: replace `test in written and first.of(test) in ("failed", "error")` with
    `False` in `src/truegreen/core/leakhunt.py`."""
    records = [violation("t.py::d", "/home/dev/replays/d.json (under the real home)")]

    def rule(applied: set[str], ran: list[str], whole: bool) -> Mapping[str, str]:
        return outcomes(set())

    runs = FakeRuns(outcomes({"t.py::d"}), rule, records)
    report = find_leaks(runs, Machine(FACTORS, ()))
    written = HomeWrite("/home/dev/replays/d.json", Factor("home", ".replayrc"))
    assert report.leaks == (Leak("t.py::d", "failed", "passed", None, True, written),)
    assert (report.reruns, len(runs.calls)) == (0, 1)


def test_only_writes_into_the_real_home_that_fail_the_test_count() -> None:
    """A warning does not fail the test; the project tree is not the home.

    Ablation: replace `record.get("mode") != "warn"` with `True` in
    `src/truegreen/core/leakhunt.py`."""
    records = [
        violation("t.py::a", "/home/dev/x (under the real home)", mode="warn"),
        violation("t.py::b", "/work/p/out (under the project tree)"),
        violation("t.py::c", "/home/dev/first (under the real home)"),
        violation("t.py::c", "/home/dev/second (under the real home)"),
    ]
    run = Outcomes(1, outcomes({"t.py::c"}), (Stream(Path("s"), records),))
    assert records[0]["target"].endswith("(under the real home)")  # premise: it is the home
    assert home_writes(run) == {"t.py::c": "/home/dev/first"}


def test_a_test_no_factor_explains_after_a_write_into_the_real_home_names_that_test() -> None:
    """The first user of a replay directory fails writing into the home, and the tests after
    it fail with it; the one before it is not pointed there.

    Ablation: replace `culprit is None and before` with `False` in
    `src/truegreen/core/leakhunt.py`."""
    records = [violation("t.py::c", "/home/dev/replays/c.json (under the real home)")]

    def rule(applied: set[str], ran: list[str], whole: bool) -> Mapping[str, str]:
        return outcomes(set())

    runs = FakeRuns(outcomes({"t.py::b", "t.py::c", "t.py::e"}), rule, records)
    report = find_leaks(runs, Machine(FACTORS, ()))
    follows = {leak.test: leak.after_home_write for leak in report.leaks}
    assert [leak.culprit for leak in report.leaks] == [None] * 3  # premise: none explains them
    assert follows == {"t.py::b": None, "t.py::c": None, "t.py::e": "t.py::c"}


def test_a_difference_no_factor_explains_that_the_ambient_run_does_not_repeat_is_a_flake() -> None:
    """The ambient run failed a test by chance: no factor gives that failure back, and a
    second ambient run passes it. Not a leak with no culprit: a flake.

    Ablation: replace `again.of(test) != first.of(test)` with `False` in
    `src/truegreen/core/leakhunt.py`: it is reported as a leak. Restored."""

    def rule(applied: set[str], ran: list[str], whole: bool) -> Mapping[str, str]:
        return outcomes(set())

    runs = FakeRuns(outcomes({"t.py::b", "t.py::d"}), rule, again=outcomes({"t.py::d"}))
    report = find_leaks(runs, Machine(FACTORS, ()))
    assert [leak.test for leak in report.leaks] == ["t.py::d"]  # premise: a steady one stays
    assert report.leaks[0].culprit is None
    assert report.unsteady == ("t.py::b",)
    # the repeat ran the ambient run's tests up to the last one it asks about, in its order
    assert runs.ambient_calls[1:] == [{"only": None, "order": ORDER[:4]}]
