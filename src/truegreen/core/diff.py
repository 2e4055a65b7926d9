"""What a change did to a suite's behaviour: two runs' event streams compared.

One side of the comparison is a run (or several, taken as one) read from a metrics directory;
its behaviour is, per test, the programs it started, the guards' reports (network, writes,
reads, refused programs), its outcome; the listeners its processes opened. Its timing is
every run of the directory: a test's seconds in each run are one sample, and a test is slower
only when both sides hold enough samples and the medians differ by a ratio and a floor.

What the stream does not record is not compared: an allowed connection and an allowed write
are not events, nor is a child process's environment read (see docs/diff.md).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Optional

from truegreen.core import events
from truegreen.core.metrics import Run, Stream, summarize

OUTSIDE = "outside any test"  # where a record with no test is counted

# The behaviour compared, each a set of entries per test: the key in the documents and the
# words a report titles it with.
CATEGORIES: tuple[tuple[str, str], ...] = (
    ("programs", "programs"),
    ("network", "network targets"),
    ("writes", "writes"),
    ("reads", "reads"),
    ("env", "environment variables read"),
)

# What --fail-on accepts, and what each gates on.
GATES: dict[str, str] = {
    "new-programs": "a test starts a program it did not (or one a guard refused)",
    "new-network": "a test reaches a network target it did not",
    "new-writes": "a test writes where it did not (as the write guard reports)",
    "new-reads": "a test reads where it did not (as the read guard reports)",
    "new-env": "the suite reads an environment variable no test of the base read",
    "slower": "a test, or the suite, is slower beyond the ratio and the floor",
    "removed-tests": "a test of the base run is not in the head run",
}

MIN_SAMPLES = 3  # per side: fewer, and no test is called slower
# Of every pair of a base sample and a head sample, the share in which the head's is the
# slower: one busy moment on a shared machine moves a median of three, not this.
SEPARATION = 0.9
EPHEMERAL = 32768  # the lowest port a system hands out by itself (Linux's default range)


def _target(target: str) -> str:
    """A network target as compared: a port a system hands out (a test's own server on port
    0) differs every run, so it is shown as ``*``."""
    host, sep, port = target.rpartition(":")
    if sep and port.isdigit() and int(port) >= EPHEMERAL:
        return f"{host}:*"
    return target


def _program(record: dict[str, Any]) -> str:
    verb = record.get("verb")
    return f"{record['program']} {verb}" if verb else str(record["program"])


@dataclass
class Side:
    """One side's behaviour: per test, what it did; and its timing samples."""

    runs: list[str]  # the ids of the runs its behaviour is read from
    tests: set[str] = field(default_factory=set)
    outcomes: dict[str, str] = field(default_factory=dict)
    seen: dict[str, dict[str, set[str]]] = field(default_factory=dict)  # category -> test -> set
    listeners: int = 0
    samples: dict[str, list[float]] = field(default_factory=dict)  # test -> seconds per run
    totals: list[float] = field(default_factory=list)  # the suite's test time, per run
    timed_runs: int = 0
    skipped: int = 0  # records skipped as not of the schema


def side(chosen: list[Run], every: list[Run]) -> Side:
    """The behaviour of the ``chosen`` runs (taken as one), the timing of ``every`` run."""
    result = Side(runs=[r.id for r in chosen])
    result.seen = {key: defaultdict(set) for key, _ in CATEGORIES}
    streams: list[Stream] = [s for r in chosen for s in r.streams]
    ports: set[tuple[str, int, int]] = set()
    for stream in streams:
        result.skipped += len(stream.skipped)
        for record in stream.records:
            event = record.get(events.EVENT)
            test = record.get("test") or OUTSIDE
            if event == events.TEST_START:
                result.tests.add(record["test"])
            elif event == events.SPAWN:
                result.seen["programs"][test].add(_program(record))
            elif event == events.VIOLATION:
                if record.get("test") is None:
                    test = record["where"]
                kind = record["kind"]
                operation, target = record["operation"], record["target"]
                if kind == "program":
                    result.seen["programs"][test].add(f"{target} (refused)")
                elif kind == "network":
                    result.seen["network"][test].add(f"{operation} {_target(target)}")
                elif kind in ("write", "read"):
                    result.seen[kind + "s"][test].add(f"{operation} {target}")
            elif event == events.ENV_READS:
                result.seen["env"][test].update(record["names"])
            elif event == events.LISTEN:
                ports.add((record["protocol"], record["port"], record["pid"]))
    result.listeners = len(ports)
    for run in chosen:  # a later run's outcome stands for a test run in several
        result.outcomes.update(summarize(run.streams).outcomes)
    result.tests |= set(result.outcomes)
    for run in every:
        times = summarize(run.streams).tests
        if not times:
            continue
        result.timed_runs += 1
        result.totals.append(sum(times.values()))
        for test, seconds in times.items():
            result.samples.setdefault(test, []).append(seconds)
    return result


@dataclass
class Slower:
    test: str
    base: float  # medians, seconds
    head: float
    base_samples: int
    head_samples: int

    @property
    def ratio(self) -> float:
        return self.head / self.base if self.base else float("inf")


def _slower(
    name: str, base: list[float], head: list[float], ratio: float, floor: float
) -> Optional[Slower]:
    if len(base) < MIN_SAMPLES or len(head) < MIN_SAMPLES:
        return None
    before, after = statistics.median(base), statistics.median(head)
    if after - before >= floor and after >= before * ratio and _apart(base, head):
        return Slower(name, before, after, len(base), len(head))
    return None


def _apart(base: list[float], head: list[float]) -> bool:
    """Whether the head's samples are above the base's in at least SEPARATION of the pairs."""
    above = sum(1 for b in base for h in head if h > b)
    return above >= SEPARATION * len(base) * len(head)


def compare(base: Side, head: Side, ratio: float, floor: float) -> dict[str, Any]:
    """The differences, as the JSON document holds them (without its format and sides)."""
    common = base.tests & head.tests
    removed = base.tests - head.tests
    data: dict[str, Any] = {
        "tests": {"added": sorted(head.tests - base.tests), "removed": sorted(removed)},
        "outcomes": [
            {"test": t, "base": base.outcomes[t], "head": head.outcomes[t]}
            for t in sorted(common)
            if t in base.outcomes and t in head.outcomes and base.outcomes[t] != head.outcomes[t]
        ],
    }  # fmt: skip
    for key, _ in CATEGORIES:
        before, after = base.seen[key], head.seen[key]
        new: dict[str, list[str]] = {}
        gone: dict[str, list[str]] = {}
        for test in sorted(set(before) | set(after)):
            added = after.get(test, set()) - before.get(test, set())
            lost = before.get(test, set()) - after.get(test, set())
            if added:
                new[test] = sorted(added)
            if lost and test not in removed:  # a removed test is listed as removed
                gone[test] = sorted(lost)
        all_before = set().union(*before.values()) if before else set()
        all_after = set().union(*after.values()) if after else set()
        data[key] = {
            "new": new,
            "gone": gone,
            "total": {
                "new": sorted(all_after - all_before),
                "gone": sorted(all_before - all_after),
            },
        }
    data["listeners"] = {"base": base.listeners, "head": head.listeners}
    enough = min(base.timed_runs, head.timed_runs) >= MIN_SAMPLES
    slower = [
        found
        for test in sorted(set(base.samples) & set(head.samples))
        if (found := _slower(test, base.samples[test], head.samples[test], ratio, floor))
    ]
    total = _slower("(the suite's test time)", base.totals, head.totals, ratio, floor)
    short = sum(
        1
        for test in set(base.samples) & set(head.samples)
        if min(len(base.samples[test]), len(head.samples[test])) < MIN_SAMPLES
    )
    data["slower"] = {
        "ratio": ratio,
        "floor_seconds": floor,
        "min_samples": MIN_SAMPLES,
        "separation": SEPARATION,
        "runs": {"base": base.timed_runs, "head": head.timed_runs},
        "enough_samples": enough,
        "tests_without_enough_samples": short,
        "tests": [_slow(s) for s in slower],
        "suite": _slow(total) if total else None,
    }
    return data


def _slow(found: Slower) -> dict[str, Any]:
    return {
        "test": found.test,
        "base_median_seconds": round(found.base, 6),
        "head_median_seconds": round(found.head, 6),
        "ratio": round(found.ratio, 2),
        "samples": {"base": found.base_samples, "head": found.head_samples},
    }


def gated(data: dict[str, Any], gates: list[str]) -> dict[str, int]:
    """Each gate asked for that the differences trip, with how many findings trip it."""
    counts = {
        "new-programs": sum(len(v) for v in data["programs"]["new"].values()),
        "new-network": sum(len(v) for v in data["network"]["new"].values()),
        "new-writes": sum(len(v) for v in data["writes"]["new"].values()),
        "new-reads": sum(len(v) for v in data["reads"]["new"].values()),
        # in total: a name read once per process (a cached setting) is read by whichever test
        # came first, which moves when the order is shuffled
        "new-env": len(data["env"]["total"]["new"]),
        "slower": len(data["slower"]["tests"]) + (1 if data["slower"]["suite"] else 0),
        "removed-tests": len(data["tests"]["removed"]),
    }
    return {gate: counts[gate] for gate in gates if counts[gate]}
