"""Flake hunting as plain logic: orders from a seed, what the runs showed, and the bisection.

A test whose outcome varies between runs is a *victim* when it passes alone and fails after
some *polluter*, *brittle* when it fails alone and passes only after some *state-setter*, and
*non-order* when the order that showed one outcome shows the other on a second try (chance,
time, the machine). Running pytest is the caller's business: a :class:`Hunt` takes a
function that runs one order (:meth:`truegreen.runner.process.PytestProcess.run`).
"""

from __future__ import annotations

import random
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Callable, Optional

from truegreen.core import events, formats
from truegreen.core.metrics import Stream, summarize
from truegreen.core.outcomes import Outcomes

VICTIM, BRITTLE, NON_ORDER = "victim", "brittle", "non-order"
NOT_FOUND = "not-found"  # --victim named a test whose outcome no other test changes
BAD = frozenset({"failed", "error"})
REPRO = ("python", "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider")

# Runs order -> did the test under examination (always last in the order) fail?
Oracle = Callable[[Sequence[str]], bool]
# Runs pytest on exactly this order (under xdist with that many workers, or None).
Run = Callable[[Sequence[str], Optional[int]], Outcomes]
Progress = Callable[[str], None]


def orders(ids: Sequence[str], seed: int, runs: int) -> list[list[str]]:
    """The orders of ``runs`` runs: collection order, its reverse, then shuffles from ``seed``.

    The first two put every pair of tests both ways round, so one polluter or one setter is
    found whatever the seed; the shuffles vary the company each test keeps.
    """
    found = [list(ids), list(reversed(ids))][:runs]
    rng = random.Random(seed)
    while len(found) < runs:
        shuffled = list(ids)
        rng.shuffle(shuffled)
        found.append(shuffled)
    return found


@dataclass(frozen=True)
class Observation:
    """One test in one process of one run: the tests that ran before it there, and its fate."""

    run: int
    test: str
    before: tuple[str, ...]
    failed: bool


def observe(run: int, streams: Sequence[Stream]) -> list[Observation]:
    """What each process of one run (the pytest process or each xdist worker) ran, in order."""
    found: list[Observation] = []
    for stream in streams:
        summary = summarize([stream])
        before: list[str] = []
        for record in stream.records:
            if record.get(events.EVENT) != events.TEST_START:
                continue
            test = record["test"]
            failed = summary.outcomes.get(test) in BAD or test in summary.unfinished
            found.append(Observation(run, test, tuple(before), failed))
            before.append(test)
    return found


def failed_in(test: str, streams: Sequence[Stream]) -> bool:
    """Whether ``test`` failed in these streams; one that never finished (a hang ended, a
    crash) or never started (an earlier test ended the process) counts as failed."""
    summary = summarize(list(streams))
    outcome = summary.outcomes.get(test)
    return outcome is None or outcome in BAD or test in summary.unfinished


def varying(observations: Sequence[Observation]) -> list[str]:
    """Tests seen both failing and passing, in the order first seen."""
    seen: dict[str, set[bool]] = {}
    for obs in observations:
        seen.setdefault(obs.test, set()).add(obs.failed)
    return [test for test, fates in seen.items() if len(fates) == 2]


def always_failing(observations: Sequence[Observation]) -> list[str]:
    seen: dict[str, set[bool]] = {}
    for obs in observations:
        seen.setdefault(obs.test, set()).add(obs.failed)
    return [test for test, fates in seen.items() if fates == {True}]


def suspects(test: str, observations: Sequence[Observation], effect: bool) -> list[str]:
    """The tests that ran before ``test`` every time it showed ``effect`` (failed: True) and
    never when it did not, in the order of the shortest such run. With one culprit and
    nothing undoing it, the culprit is among them; the caller checks that before relying on it.
    """
    showing = [o for o in observations if o.test == test and o.failed == effect]
    others = [o for o in observations if o.test == test and o.failed != effect]
    if not showing:
        return []
    always = set.intersection(*(set(o.before) for o in showing))
    cleared = set().union(*(set(o.before) for o in others))
    shortest = min(showing, key=lambda o: len(o.before))
    return [t for t in shortest.before if t in always and t not in cleared]


def bisect(
    candidates: Sequence[str], keeps: Callable[[Sequence[str]], bool], *, checked: bool = True
) -> list[str]:
    """The smallest run of ``candidates`` that ``keeps`` the effect, by halving; [] for none.

    ``keeps(subset)`` says whether running ``subset`` before the test still shows the effect;
    ``checked`` says the caller has already seen the whole of ``candidates`` do so. Each round
    tries the first half and, when it does not keep the effect, takes the second on trust, so
    one culprit among n costs about log2(n) runs; a last half taken on trust is checked once at
    the end. When that check fails (the effect needs tests from both halves, or does not
    repeat), the search starts again checking each half, and stops at the smallest set that
    keeps the effect.
    """
    current, trusted = list(candidates), not checked
    while len(current) > 1:
        first, second = current[: len(current) // 2], current[len(current) // 2 :]
        if keeps(first):
            current, trusted = first, False
        else:
            current, trusted = second, True
    if current and (not trusted or keeps(current)):
        return current
    if len(candidates) <= 1:
        return []
    current = list(candidates)
    while len(current) > 1:
        first, second = current[: len(current) // 2], current[len(current) // 2 :]
        if keeps(first):
            current, checked = first, True
        elif keeps(second):
            current, checked = second, True
        else:
            break
    return current if checked or keeps(current) else []


def command(culprits: Sequence[str], test: str) -> str:
    """The command that reproduces a finding: the culprits, then the test, in that order."""
    return shlex.join([*REPRO, *culprits, test])


@dataclass(frozen=True)
class Finding:
    """One flaky test: its kind, what makes it flip, and how to see it again."""

    test: str
    kind: str
    failed_runs: int
    observed_runs: int
    culprits: tuple[str, ...] = ()
    note: str = ""
    command: str = field(default="")


def diagnose(test: str, observations: Sequence[Observation], fails: Oracle) -> Finding:
    """Classify one varying test, running it through ``fails`` (alone, then after others)."""
    mine = [o for o in observations if o.test == test]
    failed_runs = sum(o.failed for o in mine)

    def finding(kind: str, culprits: Sequence[str] = (), note: str = "") -> Finding:
        repro = command(culprits, test) if culprits else ""
        return Finding(test, kind, failed_runs, len(mine), tuple(culprits), note, repro)

    alone_fails = fails([test])
    # A victim shows its effect by failing; a brittle test by passing.
    kind, effect = (BRITTLE, False) if alone_fails else (VICTIM, True)

    def keeps(before: Sequence[str]) -> bool:
        return fails([*before, test]) == effect

    showing = [o for o in mine if o.failed == effect]
    if not showing:
        return finding(NON_ORDER, note="alone it did what it had only done in some runs")
    shortest = min(showing, key=lambda o: len(o.before)).before
    if not shortest:
        return finding(NON_ORDER, note="it differed between two runs with nothing before it")
    narrowed = suspects(test, observations, effect)
    if narrowed and len(narrowed) < len(shortest) and keeps(narrowed):
        start = narrowed
    elif keeps(shortest):
        start = list(shortest)
    else:
        return finding(NON_ORDER, note="the same order did not repeat the outcome")
    culprits = bisect(start, keeps)
    return finding(kind, culprits)


def culprit_of(test: str, ids: Sequence[str], fails: Oracle) -> Finding:
    """The polluter (or setter) of one named test among the others, in collection order."""
    alone_fails = fails([test])
    kind, effect = (BRITTLE, False) if alone_fails else (VICTIM, True)
    others = [t for t in ids if t != test]
    culprits = bisect(others, lambda before: fails([*before, test]) == effect, checked=False)
    if not culprits:
        fate = "fails" if alone_fails else "passes"
        note = f"it {fate} alone and after the {len(others)} other tests"
        return Finding(test, NOT_FOUND, int(alone_fails), 1, note=note)
    return Finding(test, kind, 0, 0, tuple(culprits), "", command(culprits, test))


@dataclass(frozen=True)
class Report:
    """What a hunt found, and what it cost."""

    seed: Optional[int]
    runs: int
    tests: int
    findings: tuple[Finding, ...]
    always_failing: tuple[str, ...]
    pytest_runs: int
    notes: tuple[str, ...] = ()

    @property
    def flaky(self) -> bool:
        return bool(self.findings)


def document(report: Report) -> dict[str, object]:
    """The JSON form of a report (``format`` 1)."""
    return {
        "format": formats.FLAKES,
        "seed": report.seed,
        "runs": report.runs,
        "tests": report.tests,
        "pytest_runs": report.pytest_runs,
        "flaky": [
            {
                "test": f.test,
                "kind": f.kind,
                "culprits": list(f.culprits),
                "command": f.command,
                "failed_runs": f.failed_runs,
                "observed_runs": f.observed_runs,
                "note": f.note,
            }
            for f in report.findings
        ],
        "always_failing": list(report.always_failing),
        "notes": list(report.notes),
    }


class Hunt:
    """A hunt over the collected tests ``ids`` (in collection order), running pytest
    through ``run`` and telling ``progress`` what each run showed."""

    def __init__(self, ids: Sequence[str], run: Run, progress: Progress = lambda line: None):
        self.ids = list(ids)
        self.position = {test: n for n, test in enumerate(self.ids)}
        self._run = run
        self.progress = progress
        self.pytest_runs = 1  # the collection

    def run(self, order: Sequence[str], workers: Optional[int] = None) -> Outcomes:
        self.pytest_runs += 1
        return self._run(order, workers)

    def fails(self, order: Sequence[str]) -> bool:
        """The oracle: whether the last test of ``order`` fails when run in that order."""
        failed = failed_in(order[-1], self.run(order).streams)
        before = f"after {len(order) - 1} tests" if len(order) > 1 else "alone"
        self.progress(f"  {before}: {'failed' if failed else 'passed'}")
        return failed

    def varying(self, seed: int, runs: int, xdist: Optional[int] = None) -> Report:
        """``runs`` runs in different orders, then a diagnosis of each test whose outcome
        varied. Collection order and its reverse run in one process, so each pair meets
        both ways round; with ``xdist``, every second shuffle runs under that many workers,
        where a test keeps other company."""
        self.progress(f"{len(self.ids)} tests, {runs} runs, seed {seed}")
        observations: list[Observation] = []
        for number, order in enumerate(orders(self.ids, seed, runs)):
            workers = xdist if xdist and number >= 2 and number % 2 == 1 else None
            label = ("collection order", "reversed")[number] if number < 2 else "shuffled"
            seen = observe(number, self.run(order, workers).streams)
            observations += seen
            failed = sum(o.failed for o in seen)
            self.progress(f"run {number + 1}/{runs} ({label}"
                          f"{f', -n {workers}' if workers else ''}): {failed} failed")  # fmt: skip
        findings = []
        for test in sorted(varying(observations), key=self.position.__getitem__):
            self.progress(f"examining {test}")
            findings.append(diagnose(test, observations, self.fails))
        always = sorted(always_failing(observations), key=self.position.__getitem__)
        return Report(seed, runs, len(self.ids), tuple(findings), tuple(always), self.pytest_runs)

    def victim(self, test: str) -> Report:
        """Bisect one named test among the others, in collection order."""
        self.progress(f"bisecting {test} among {len(self.ids) - 1} other tests")
        finding = culprit_of(test, self.ids, self.fails)
        found = () if finding.kind == NOT_FOUND else (finding,)
        notes = () if found else (f"{test}: no polluter or state-setter: {finding.note}",)
        return Report(None, 0, len(self.ids), found, (), self.pytest_runs, notes)
