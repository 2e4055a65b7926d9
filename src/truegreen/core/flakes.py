"""Flake hunting as plain logic: orders from a seed, what the runs showed, and the bisection.

A test whose outcome varies between runs is a *victim* when it passes alone and fails after
some *polluter*, *brittle* when it fails alone and passes only after some *state-setter*, and
*non-order* when the order that showed one outcome shows the other on a second try (chance,
time, the machine). A test that fails only when it runs first, by a guard's violation, is a
*violation*: whichever test first uses a shared object that writes or connects pays for it, and
no order is safe until the violation is fixed. The items of one document (the doctests of a
module, the blocks of a Sybil document) run in sequence by design: they move as one block and
an item always runs after its document's earlier items. Running pytest is the caller's
business: a :class:`Hunt` takes a function that runs one order
(:meth:`truegreen.runner.process.PytestProcess.run`).
"""

from __future__ import annotations

import random
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Callable, Optional, TypeVar

from truegreen.core import events, formats
from truegreen.core.metrics import Stream, summarize
from truegreen.core.outcomes import Outcomes

VICTIM, BRITTLE, NON_ORDER, VIOLATION = "victim", "brittle", "non-order", "violation"
NOT_FOUND = "not-found"  # --victim named a test whose outcome no other test changes
BAD = frozenset({"failed", "error"})
REPRO = ("python", "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider")

# Runs order -> did the test under examination (always last in the order) fail?
Oracle = Callable[[Sequence[str]], bool]
# Runs pytest on exactly this order (under xdist with that many workers, or None).
Run = Callable[[Sequence[str], Optional[int]], Outcomes]
Progress = Callable[[str], None]
T = TypeVar("T")


def flat(blocks: Iterable[Sequence[str]]) -> list[str]:
    return [test for block in blocks for test in block]


class Units:
    """The tests as a hunt moves them: each Python test alone, the items of one document
    (``documents``: node id -> document) together and in their collection order."""

    def __init__(self, ids: Sequence[str], documents: Mapping[str, str]) -> None:
        self.document = {test: documents[test] for test in ids if test in documents}
        members: dict[str, list[str]] = {}
        for test, name in self.document.items():
            members.setdefault(name, []).append(test)
        self.blocks: list[tuple[str, ...]] = []
        for test in ids:
            document = self.document.get(test)
            if document is None:
                self.blocks.append((test,))
            elif members[document][0] == test:
                self.blocks.append(tuple(members[document]))
        self.members = {doc: tuple(tests) for doc, tests in members.items()}

    def lead(self, test: str) -> tuple[str, ...]:
        """The items of ``test``'s document before it: they always run just before it."""
        document = self.document.get(test)
        if document is None:
            return ()
        mine = self.members[document]
        return mine[: mine.index(test)]

    def own(self, test: str) -> frozenset[str]:
        """The items of ``test``'s document, itself included (only itself for a Python test)."""
        document = self.document.get(test)
        return frozenset(self.members[document]) if document is not None else frozenset({test})

    def cut(self, tests: Sequence[str]) -> list[tuple[str, ...]]:
        """``tests`` as blocks a bisection keeps or drops whole: consecutive items of one
        document together, every other test alone."""
        found: list[tuple[str, ...]] = []
        for test in tests:
            document = self.document.get(test)
            if found and document is not None and self.document.get(found[-1][-1]) == document:
                found[-1] = (*found[-1], test)
            else:
                found.append((test,))
        return found


def orders(
    ids: Sequence[str], seed: int, runs: int, units: Optional[Units] = None
) -> list[list[str]]:
    """The orders of ``runs`` runs: collection order, its reverse, then shuffles from ``seed``.

    The first two put every pair of tests both ways round, so one polluter or one setter is
    found whatever the seed; the shuffles vary the company each test keeps. What moves is a
    block of ``units``: the items of one document stay together and in their order.
    """
    blocks = (units or Units(ids, {})).blocks
    found = [flat(blocks), flat(reversed(blocks))][:runs]
    rng = random.Random(seed)
    while len(found) < runs:
        shuffled = list(blocks)
        rng.shuffle(shuffled)
        found.append(flat(shuffled))
    return found


@dataclass(frozen=True)
class Observation:
    """One test in one process of one run: the tests that ran before it there, its fate, and
    the kinds of the violations that failed it (``write``, ``network``, ...) and the first
    of them in words."""

    run: int
    test: str
    before: tuple[str, ...]
    failed: bool
    violations: tuple[str, ...] = ()
    violation: str = ""


def violations(streams: Sequence[Stream]) -> dict[str, list[tuple[str, str]]]:
    """Test -> the kind and the words of each violation that fails it, from every process of
    a run (a child process the test started records its own); a violation in ``warn`` mode
    fails nothing and is left out."""
    found: dict[str, list[tuple[str, str]]] = {}
    for stream in streams:
        for record in stream.records:
            if record.get(events.EVENT) == events.VIOLATION and record.get("mode") != "warn":
                test = record.get("test")
                if isinstance(test, str):
                    action = "blocked" if record.get("blocked") else "did"
                    words = (f"{record.get('kind')}: {action} {record.get('operation')} "
                             f"{record.get('target')} at {record.get('site')}")  # fmt: skip
                    found.setdefault(test, []).append((str(record.get("kind")), words))
    return found


def observe(
    run: int, streams: Sequence[Stream], units: Optional[Units] = None
) -> list[Observation]:
    """What each process of one run (the pytest process or each xdist worker) ran, in order.

    An item of a document that ran without its document's earlier items just before it (xdist
    scattered the document over its workers) is left out: it ran in a way it is not built to.
    """
    found: list[Observation] = []
    violated = violations(streams)
    for stream in streams:
        summary = summarize([stream])
        before: list[str] = []
        for record in stream.records:
            if record.get(events.EVENT) != events.TEST_START:
                continue
            test = record["test"]
            lead = units.lead(test) if units else ()
            if not lead or tuple(before[-len(lead) :]) == lead:
                failed = summary.outcomes.get(test) in BAD or test in summary.unfinished
                seen = violated.get(test, [])
                kinds = tuple(sorted({kind for kind, _ in seen}))
                words = seen[0][1] if seen else ""
                found.append(Observation(run, test, tuple(before), failed, kinds, words))
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
    candidates: Sequence[T], keeps: Callable[[Sequence[T]], bool], *, checked: bool = True
) -> list[T]:
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


def command(culprits: Sequence[str], test: str, lead: Sequence[str] = ()) -> str:
    """The command that reproduces a finding: the culprits, then the earlier items of the
    test's document, then the test, in that order."""
    return shlex.join([*REPRO, *culprits, *lead, test])


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
    violations: tuple[str, ...] = ()


def triggered_first(
    test: str, observations: Sequence[Observation], kinds: Iterable[str]
) -> list[str]:
    """The other tests that, in the runs ``test`` passed, ran before it and failed by a
    violation of one of these ``kinds``: they triggered it first instead."""
    kinds = set(kinds)
    fate = {(o.run, o.test): o for o in observations}
    found: list[str] = []
    for mine in observations:
        if mine.test != test or mine.failed:
            continue
        for other in mine.before:
            seen = fate.get((mine.run, other))
            if seen and seen.failed and kinds & set(seen.violations) and other not in found:
                found.append(other)
    return found


def diagnose(
    test: str, observations: Sequence[Observation], fails: Oracle, units: Optional[Units] = None
) -> Finding:
    """Classify one varying test, running it through ``fails`` (alone, then after others).

    An item of a document always runs just after its document's earlier items (``units``),
    and none of them is ever a culprit of it.
    """
    units = units or Units([], {})
    lead, own = units.lead(test), units.own(test)
    mine = [o for o in observations if o.test == test]
    failed_runs = sum(o.failed for o in mine)

    def finding(kind: str, culprits: Sequence[str] = (), note: str = "") -> Finding:
        repro = command(culprits, test, lead) if culprits else ""
        return Finding(test, kind, failed_runs, len(mine), tuple(culprits), note, repro)

    def after(before: Sequence[str]) -> bool:
        return fails([*before, *lead, test])

    alone_fails = after([])
    failing = [o for o in mine if o.failed]
    if alone_fails and failing and all(o.violations for o in failing):
        kinds = sorted({kind for o in failing for kind in o.violations})
        note = (f"fails in some orders because {test} triggers a {' and '.join(kinds)} "
                f"violation when it runs first: {failing[0].violation}")  # fmt: skip
        others = triggered_first(test, observations, kinds)
        return Finding(test, VIOLATION, failed_runs, len(mine), tuple(others), note,
                       command((), test, lead), tuple(kinds))  # fmt: skip
    # A victim shows its effect by failing; a brittle test by passing.
    kind, effect = (BRITTLE, False) if alone_fails else (VICTIM, True)

    def keeps(blocks: Sequence[Sequence[str]]) -> bool:
        return after(flat(blocks)) == effect

    showing = [o for o in mine if o.failed == effect]
    if not showing:
        return finding(NON_ORDER, note="alone it did what it had only done in some runs")
    shortest = min(([t for t in o.before if t not in own] for o in showing), key=len)
    if not shortest:
        return finding(NON_ORDER, note="it differed between two runs with nothing before it")
    narrowed = [t for t in suspects(test, observations, effect) if t not in own]
    if narrowed and len(narrowed) < len(shortest) and keeps([narrowed]):
        start = units.cut(narrowed)
    elif keeps([shortest]):
        start = units.cut(shortest)
    else:
        return finding(NON_ORDER, note="the same order did not repeat the outcome")
    culprits = flat(bisect(start, keeps))
    return finding(kind, culprits)


def culprit_of(
    test: str, ids: Sequence[str], fails: Oracle, units: Optional[Units] = None
) -> Finding:
    """The polluter (or setter) of one named test among the others, in collection order."""
    units = units or Units(ids, {})
    lead, own = units.lead(test), units.own(test)
    alone_fails = fails([*lead, test])
    kind, effect = (BRITTLE, False) if alone_fails else (VICTIM, True)
    others = [block for block in units.blocks if not own & set(block)]

    def keeps(blocks: Sequence[Sequence[str]]) -> bool:
        return fails([*flat(blocks), *lead, test]) == effect

    culprits = flat(bisect(others, keeps, checked=False))
    if not culprits:
        fate = "fails" if alone_fails else "passes"
        note = f"it {fate} alone and after the {len(flat(others))} other tests"
        return Finding(test, NOT_FOUND, int(alone_fails), 1, note=note)
    return Finding(test, kind, 0, 0, tuple(culprits), "", command(culprits, test, lead))


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
                "violations": list(f.violations),
            }
            for f in report.findings
        ],
        "always_failing": list(report.always_failing),
        "notes": list(report.notes),
    }


class Hunt:
    """A hunt over the collected tests ``ids`` (in collection order), running pytest
    through ``run`` and telling ``progress`` what each run showed."""

    def __init__(
        self,
        ids: Sequence[str],
        run: Run,
        progress: Progress = lambda line: None,
        documents: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.ids = list(ids)
        self.units = Units(self.ids, documents or {})
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
        for number, order in enumerate(orders(self.ids, seed, runs, self.units)):
            workers = xdist if xdist and number >= 2 and number % 2 == 1 else None
            label = ("collection order", "reversed")[number] if number < 2 else "shuffled"
            seen = observe(number, self.run(order, workers).streams, self.units)
            observations += seen
            failed = sum(o.failed for o in seen)
            self.progress(f"run {number + 1}/{runs} ({label}"
                          f"{f', -n {workers}' if workers else ''}): {failed} failed")  # fmt: skip
        findings = []
        for test in sorted(varying(observations), key=self.position.__getitem__):
            self.progress(f"examining {test}")
            findings.append(diagnose(test, observations, self.fails, self.units))
        always = sorted(always_failing(observations), key=self.position.__getitem__)
        return Report(seed, runs, len(self.ids), tuple(findings), tuple(always), self.pytest_runs)

    def victim(self, test: str) -> Report:
        """Bisect one named test among the others, in collection order."""
        self.progress(f"bisecting {test} among {len(self.ids) - 1} other tests")
        finding = culprit_of(test, self.ids, self.fails, self.units)
        found = () if finding.kind == NOT_FOUND else (finding,)
        notes = () if found else (f"{test}: no polluter or state-setter: {finding.note}",)
        return Report(None, 0, len(self.ids), found, (), self.pytest_runs, notes)
