"""Reading the event stream and summing it up: where the time went, what never finished.

Every process's file is read line by line and each record checked against the schema in
:mod:`truegreen.core.events`. A last line without its newline (a process killed mid-write) is
reported, not fatal; a record that parses but does not hold to the schema (a field missing
or mistyped) is skipped and counted with its line; a line that is not JSON at all, or a
file of another version, is a DataError naming the file and the line.

A metrics directory may hold several runs (a directory reused from one run to the next, or
the artifacts of several CI jobs downloaded into one): each run writes under its own id, and
:func:`runs` tells them apart, so one run's report never sums another's processes.
"""

from __future__ import annotations

import os
import re
import statistics
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from truegreen.core import events, jsonfile
from truegreen.core.errors import DataError
from truegreen.core.files import walked


@dataclass
class Stream:
    """One process's records, and the lines skipped as not holding to the schema."""

    path: Path
    records: list[dict[str, Any]]
    truncated: bool = False
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (line number, why)
    run: str = ""  # the run's id ("" for a stream written without one); read_dir sets it

    @property
    def process(self) -> dict[str, Any]:
        first = self.records[0] if self.records else {}
        return first if events.VERSION_KEY in first else {}


def read_stream(path: Path) -> Stream:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DataError(f"{path}: expected a readable event stream, found {exc.strerror}") from None
    lines = data.split(b"\n")
    truncated = bool(lines and lines[-1])
    complete = lines[:-1]
    records: list[dict[str, Any]] = []
    skipped: list[tuple[int, str]] = []
    origin: Optional[float] = None  # the time of the file's first record
    for number, line in enumerate(complete, start=1):
        if not line.strip():
            continue
        record = jsonfile.loads(line, f"{path}:{number}", "one JSON record")
        if not isinstance(record, dict):
            skipped.append((number, f"expected a JSON object, found {type(record).__name__}"))
            continue
        version = record.get(events.VERSION_KEY, events.VERSION)
        if not records and not skipped and version != events.VERSION:
            raise DataError(
                f"{path}:{number}: expected schema version {events.VERSION}, found {version!r}"
            )
        problem = events.problem(record, origin)
        if problem is not None:
            skipped.append((number, problem))
            continue
        if origin is None and _number(record.get("t")):
            origin = float(record["t"])
        records.append(record)
    return Stream(path, records, truncated, skipped)


# A run's id: when it began (UTC, to the second, so ids sort as the runs began) and six
# random hex digits (two runs begun in one second differ). Its directory is named by it.
RUN_ID = re.compile(r"\d{8}T\d{6}Z-[0-9a-f]{6}\Z")
NO_RUN = ""  # the run of the streams written before run ids (or by hand): one run together


def new_run_id(now: Optional[float] = None) -> str:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(time.time() if now is None else now))
    return f"{stamp}-{os.urandom(3).hex()}"


def _run_of(stream: Stream, directory: Path) -> str:
    """The run a file belongs to: the id its process record names, else the id its directory
    (or one above it, up to the metrics directory) is named by, else none."""
    named = stream.process.get("run")
    if isinstance(named, str) and named:
        return named
    for parent in stream.path.parents:
        if RUN_ID.match(parent.name):
            return parent.name
        if parent == directory:
            break
    return NO_RUN


def read_dir(directory: Path) -> list[Stream]:
    """Every stream under ``directory``, each knowing its run (``Stream.run``)."""
    if not directory.is_dir():
        raise DataError(f"{directory}: expected a metrics directory, found none")
    # a directory so named is one line saying so; a FIFO would hang the reading
    found = sorted(p for p in directory.rglob("*.jsonl") if p.is_dir() or walked(p))
    streams = [read_stream(p) for p in found]
    if not streams:
        raise DataError(f"{directory}: expected *.jsonl event streams, found none")
    for stream in streams:
        stream.run = _run_of(stream, directory)
    _set_apart(streams)
    return streams


def _set_apart(streams: list[Stream]) -> None:
    """Skip the whole of a file that began more than :data:`events.MAX_SECONDS` away from the
    median beginning of its run's files: a clock of 1970, or a time written by hand, would make
    the run's wall time decades long, and no record of that file can be placed in the run."""
    began: dict[str, list[float]] = defaultdict(list)
    for stream in streams:
        if stream.records and _number(stream.records[0].get("t")):
            began[stream.run].append(stream.records[0]["t"])
    for stream in streams:
        if not stream.records or not _number(stream.records[0].get("t")):
            continue
        middle = statistics.median_high(began[stream.run])  # of two, the later: a clock of 1970
        t = stream.records[0]["t"]
        if abs(t - middle) > events.MAX_SECONDS:
            why = (
                f"field 't': expected a time within {events.MAX_SECONDS:g} s of the run's other "
                f"files (they began at {middle!r}), found {t!r}: the whole file is left out"
            )
            stream.skipped.insert(0, (1, f"{stream.records[0].get(events.EVENT)}: {why}"))
            stream.records = []


@dataclass
class Run:
    """One run's streams: one pytest session, or an xdist controller and its workers, or
    every file session of one ``truegreen run``; with their children."""

    id: str
    streams: list[Stream]

    @property
    def start(self) -> float:
        times = [r["t"] for s in self.streams for r in s.records[:2] if _number(r.get("t"))]
        return min(times) if times else 0.0

    @property
    def processes(self) -> int:
        """The pytest processes (sessions and xdist workers), children not counted."""
        return len(
            {s.process.get("pid") for s in self.streams
             if s.process.get("role") in ("session", "worker")}
        )  # fmt: skip

    @property
    def tests(self) -> int:
        return len(
            {r["test"] for s in self.streams for r in s.records
             if r.get(events.EVENT) == events.TEST_START}
        )  # fmt: skip

    @property
    def name(self) -> str:
        return self.id or "(no run id)"


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def runs(streams: list[Stream]) -> list[Run]:
    """The runs these streams belong to, the earliest begun first."""
    grouped: dict[str, list[Stream]] = defaultdict(list)
    for stream in streams:
        grouped[stream.run].append(stream)
    return sorted((Run(i, s) for i, s in grouped.items()), key=lambda r: (r.start, r.id))


def pick(found: list[Run], wanted: Optional[str]) -> Run:
    """The run named ``wanted`` (its id, or a prefix naming only it; ``none`` for the
    streams written without one), or the latest when None."""
    if wanted is None:
        return found[-1]
    key = NO_RUN if wanted == "none" else wanted
    matches = [r for r in found if r.id == key] or [
        r for r in found if key and r.id.startswith(key)
    ]
    if len(matches) != 1:
        names = ", ".join(r.id or "none" for r in (matches or found))
        found_text = f"{len(matches)} runs beginning so ({names})" if matches else "no such run"
        expected = "an id naming one run" if matches else f"one of the runs {names}"
        raise DataError(f"--run {wanted}: expected {expected}, found {found_text}")
    return matches[0]


@dataclass
class Summary:
    """What a run's streams add up to."""

    wall: float = 0.0  # the first record's time to the last one's, over every process
    span: float = 0.0  # the first test's start to the last test's end, over every process
    busy: float = 0.0  # summed seconds of test phases over every process
    workers: int = 0  # the processes that ran tests
    parallel: int = 0  # the most of them running tests at once
    tests: dict[str, float] = field(default_factory=dict)  # node id -> seconds (all phases)
    outcomes: dict[str, str] = field(default_factory=dict)
    files: dict[str, float] = field(default_factory=dict)
    fixtures: dict[str, tuple[int, float]] = field(default_factory=dict)  # name -> (n, seconds)
    teardowns: dict[str, tuple[int, float]] = field(default_factory=dict)  # as fixtures
    unfinished: list[str] = field(default_factory=list)
    tails: dict[str, float] = field(default_factory=dict)  # process -> seconds after last test
    spawns_by_test: dict[str, Counter[str]] = field(default_factory=dict)
    spawns_by_program: Counter[str] = field(default_factory=Counter)
    spawns_by_site: Counter[str] = field(default_factory=Counter)
    truncated: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "file:line: why", records not trusted

    @property
    def efficiency(self) -> Optional[float]:
        """The test time over what the processes running tests at once could have given them
        from the first test's start to the last one's end; None when one ran at a time, where
        it would only say how much of the time went between tests."""
        capacity = self.span * self.parallel
        return self.busy / capacity if capacity and self.parallel > 1 else None


def _peak(spans: list[tuple[float, float]]) -> int:
    """The most of these spans open at one moment (xdist's workers: all of them; the file
    sessions of ``truegreen run -j 2``: two)."""
    moments = sorted([(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans])
    peak = now = 0
    for _, step in moments:  # at a tie an end comes first: one after another is not at once
        now += step
        peak = max(peak, now)
    return peak


def summarize(streams: list[Stream]) -> Summary:
    summary = Summary()
    times = [r["t"] for s in streams for r in s.records if isinstance(r.get("t"), (int, float))]
    summary.wall = (max(times) - min(times)) if times else 0.0
    first_start: Optional[float] = None
    final_end: Optional[float] = None
    outcome_rank = {"failed": 3, "error": 3, "skipped": 1, "passed": 0, "xfailed": 1}
    spawns: dict[str, Counter[str]] = defaultdict(Counter)
    spans: list[tuple[float, float]] = []  # each process's first test start to last test end
    for stream in streams:
        if stream.truncated:
            summary.truncated.append(str(stream.path))
        summary.skipped += [f"{stream.path}:{line}: {why}" for line, why in stream.skipped]
        started: dict[str, float] = {}
        last_end = None
        end = None
        runs_tests = False
        process = stream.path.name  # as a user knows it: gw0, else its file
        own_start: Optional[float] = None
        for record in stream.records:
            event = record.get(events.EVENT)
            if event == events.TEST_START:
                started[record["test"]] = record["t"]
                runs_tests = True
                if own_start is None:
                    own_start = record["t"]
                if first_start is None or record["t"] < first_start:
                    first_start = record["t"]
            elif event == events.TEST_END:
                started.pop(record["test"], None)
                last_end = record["t"]
                if final_end is None or last_end > final_end:
                    final_end = last_end
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
            elif event == events.FIXTURE or event == events.FIXTURE_TEARDOWN:
                table = summary.fixtures if event == events.FIXTURE else summary.teardowns
                count, seconds = table.get(record["fixture"], (0, 0.0))
                table[record["fixture"]] = (count + 1, seconds + float(record["duration"]))
            elif event == events.SPAWN:
                name = (
                    f"{record['program']} {record['verb']}"
                    if record.get("verb")
                    else record["program"]
                )
                spawns[record.get("test") or "outside any test"][name] += 1
                summary.spawns_by_program[name] += 1
                summary.spawns_by_site[record.get("site", "?")] += 1
            elif event == events.SESSION_START:
                process = record.get("worker") or process
            elif event == events.SESSION_END:
                end = record["t"]
        summary.unfinished += sorted(started)
        if runs_tests:
            summary.workers += 1
            own_times = [r["t"] for r in stream.records if _number(r.get("t"))]
            own_end = max(own_times) if started or last_end is None else last_end
            spans.append((own_start or 0.0, own_end))
            if last_end is not None and end is not None:
                summary.tails[process] = max(0.0, end - last_end)
    summary.spawns_by_test = dict(spawns)
    summary.parallel = _peak(spans)
    if first_start is not None:
        # a test that never finished ran on to the last record
        end = max(times) if summary.unfinished or final_end is None else final_end
        summary.span = max(0.0, end - first_start)
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
