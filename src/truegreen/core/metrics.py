"""Reading the event stream and summing it up: where the time went, what never finished.

Every process's file is read line by line and each record checked against the schema in
:mod:`truegreen.core.events`. A last line without its newline (a process killed mid-write) is
reported, not fatal; a record that parses but does not hold to the schema (a field missing
or mistyped) is skipped and counted with its line; a line that is not JSON at all, or a
file of another version, is a DataError naming the file and the line.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from truegreen.core import events
from truegreen.core.errors import DataError


@dataclass
class Stream:
    """One process's records, and the lines skipped as not holding to the schema."""

    path: Path
    records: list[dict[str, Any]]
    truncated: bool = False
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (line number, why)

    @property
    def process(self) -> dict[str, Any]:
        first = self.records[0] if self.records else {}
        return first if events.VERSION_KEY in first else {}


def read_stream(path: Path) -> Stream:
    data = path.read_bytes()
    lines = data.split(b"\n")
    truncated = bool(lines and lines[-1])
    complete = lines[:-1]
    records: list[dict[str, Any]] = []
    skipped: list[tuple[int, str]] = []
    for number, line in enumerate(complete, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise DataError(f"{path}:{number}: expected one JSON record, found {exc}") from None
        if not isinstance(record, dict):
            skipped.append((number, f"expected a JSON object, found {type(record).__name__}"))
            continue
        version = record.get(events.VERSION_KEY, events.VERSION)
        if not records and not skipped and version != events.VERSION:
            raise DataError(
                f"{path}:{number}: expected schema version {events.VERSION}, found {version!r}"
            )
        problem = events.problem(record)
        if problem is not None:
            skipped.append((number, problem))
            continue
        records.append(record)
    return Stream(path, records, truncated, skipped)


def read_dir(directory: Path) -> list[Stream]:
    if not directory.is_dir():
        raise DataError(f"{directory}: expected a metrics directory, found none")
    streams = [read_stream(p) for p in sorted(directory.rglob("*.jsonl"))]
    if not streams:
        raise DataError(f"{directory}: expected *.jsonl event streams, found none")
    return streams


@dataclass
class Summary:
    """What a run's streams add up to."""

    wall: float = 0.0
    busy: float = 0.0  # summed seconds of test phases over every process
    workers: int = 0
    tests: dict[str, float] = field(default_factory=dict)  # node id -> seconds (all phases)
    outcomes: dict[str, str] = field(default_factory=dict)
    files: dict[str, float] = field(default_factory=dict)
    fixtures: dict[str, tuple[int, float]] = field(default_factory=dict)  # name -> (n, seconds)
    unfinished: list[str] = field(default_factory=list)
    tails: dict[str, float] = field(default_factory=dict)  # process -> seconds after last test
    spawns_by_test: dict[str, Counter[str]] = field(default_factory=dict)
    spawns_by_program: Counter[str] = field(default_factory=Counter)
    spawns_by_site: Counter[str] = field(default_factory=Counter)
    truncated: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "file:line: why", records not trusted

    @property
    def efficiency(self) -> float:
        capacity = self.wall * max(self.workers, 1)
        return self.busy / capacity if capacity else 0.0


def summarize(streams: list[Stream]) -> Summary:
    summary = Summary()
    times = [r["t"] for s in streams for r in s.records if isinstance(r.get("t"), (int, float))]
    summary.wall = (max(times) - min(times)) if times else 0.0
    outcome_rank = {"failed": 3, "error": 3, "skipped": 1, "passed": 0, "xfailed": 1}
    spawns: dict[str, Counter[str]] = defaultdict(Counter)
    for stream in streams:
        if stream.truncated:
            summary.truncated.append(str(stream.path))
        summary.skipped += [f"{stream.path}:{line}: {why}" for line, why in stream.skipped]
        started: dict[str, float] = {}
        last_end = None
        end = None
        runs_tests = False
        for record in stream.records:
            event = record.get(events.EVENT)
            if event == events.TEST_START:
                started[record["test"]] = record["t"]
                runs_tests = True
            elif event == events.TEST_END:
                started.pop(record["test"], None)
                last_end = record["t"]
            elif event == events.PHASE:
                test, seconds = record["test"], float(record.get("duration") or 0.0)
                summary.busy += seconds
                summary.tests[test] = summary.tests.get(test, 0.0) + seconds
                path = test.split("::", 1)[0]
                summary.files[path] = summary.files.get(path, 0.0) + seconds
                outcome = (
                    "error"
                    if record["phase"] != "call" and record["outcome"] == "failed"
                    else record["outcome"]
                )
                if outcome_rank.get(outcome, 0) >= outcome_rank.get(
                    summary.outcomes.get(test, "passed"), 0
                ):
                    summary.outcomes[test] = outcome
            elif event == events.FIXTURE:
                count, seconds = summary.fixtures.get(record["fixture"], (0, 0.0))
                summary.fixtures[record["fixture"]] = (
                    count + 1,
                    seconds + float(record["duration"]),
                )
            elif event == events.SPAWN:
                name = (
                    f"{record['program']} {record['verb']}"
                    if record.get("verb")
                    else record["program"]
                )
                spawns[record.get("test") or "outside any test"][name] += 1
                summary.spawns_by_program[name] += 1
                summary.spawns_by_site[record.get("site", "?")] += 1
            elif event == events.SESSION_END:
                end = record["t"]
        summary.unfinished += sorted(started)
        if runs_tests:
            summary.workers += 1
            if last_end is not None and end is not None:
                summary.tails[stream.path.name] = max(0.0, end - last_end)
    summary.spawns_by_test = dict(spawns)
    return summary


def durations(summary: Summary) -> dict[str, float]:
    """``{nodeid: seconds}``: the durations file sharding reads (pytest-split's format)."""
    return {test: round(seconds, 6) for test, seconds in sorted(summary.tests.items())}


def outcome_counts(streams: list[Stream]) -> dict[str, int]:
    """Reports by kind, counted as pytest's closing line counts them: a call that passed or
    failed, a setup or teardown that failed (an error), a skip, an expected failure."""
    counts: Counter[str] = Counter()
    for stream in streams:
        for record in stream.records:
            if record.get(events.EVENT) != events.PHASE:
                continue
            outcome, call = record.get("outcome"), record.get("phase") == "call"
            if outcome == "failed":
                counts["failed" if call else "errors"] += 1
            elif outcome in ("skipped", "xfailed"):
                counts[str(outcome)] += 1
            elif outcome == "passed" and call:
                counts["passed"] += 1
    return dict(counts)
