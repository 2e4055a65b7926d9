"""A run's time, lane by lane: the model the HTML timeline and the trace-event JSON draw.

One lane per pytest process of the run, named as a user knows it: ``gw0`` for an xdist
worker, ``controller`` for the xdist controller (it collects and hands out tests), ``session``
for a plain pytest, or the test file a ``truegreen run --isolate-files`` session ran. A lane
spans its session (start to end, collection and cleanup included) and holds one bar per test,
each split into its setup, call and teardown phases, with the fixture setups inside its setup.
Unfinished tests run to the last record the process made.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Optional

from truegreen.core import events
from truegreen.core.metrics import Stream

OUTCOME_RANK = {"passed": 0, "xfailed": 1, "skipped": 2, "failed": 3, "error": 4}


@dataclass
class Bar:
    """One test in its lane; times are seconds since the run's first record."""

    test: str
    start: float
    end: float = 0.0
    outcome: str = "passed"
    unfinished: bool = True
    phases: list[tuple[str, str, float, float]] = field(default_factory=list)  # when, outcome,
    # start, seconds
    fixtures: list[tuple[str, str, float, float]] = field(default_factory=list)  # name, scope,
    # start, seconds
    teardowns: list[tuple[str, str, float, float]] = field(default_factory=list)  # as fixtures

    def note_outcome(self, phase: str, outcome: str) -> None:
        if phase != "call" and outcome == "failed":
            outcome = "error"
        if OUTCOME_RANK.get(outcome, 0) > OUTCOME_RANK.get(self.outcome, 0):
            self.outcome = outcome


@dataclass
class Lane:
    """One pytest process: its name, its session's span and its tests."""

    name: str
    kind: str  # "controller", "worker", "session" or "file"
    pid: int
    start: float
    end: float
    bars: list[Bar] = field(default_factory=list)
    spawns: list[tuple[float, str]] = field(default_factory=list)  # when, program (and verb)


@dataclass
class Timeline:
    origin: float  # the run's first record, seconds since the epoch
    total: float
    lanes: list[Lane]


def _time(record: dict[str, Any], last: float) -> float:
    raw = record.get("t")
    return float(raw) if isinstance(raw, (int, float)) and not isinstance(raw, bool) else last


def build(streams: list[Stream]) -> Timeline:
    """The run's lanes, from its streams (one run's, or several runs' with ``--all``)."""
    times = [r["t"] for s in streams for r in s.records if isinstance(r.get("t"), (int, float))]
    origin = min(times) if times else 0.0
    total = (max(times) - origin) if times else 0.0
    by_pid: dict[tuple[str, int], list[Stream]] = defaultdict(list)
    for stream in streams:  # the metrics' file and the guards' file of one process, together
        process = stream.process
        if process.get("role") in ("session", "worker") and isinstance(process.get("pid"), int):
            by_pid[(stream.run, process["pid"])].append(stream)
    lanes = [lane for key, group in by_pid.items() if (lane := _lane(key[1], group, origin))]
    _name(lanes)
    lanes.sort(key=_order)
    return Timeline(origin, total, lanes)


def _lane(pid: int, streams: list[Stream], origin: float) -> Optional[Lane]:
    records = sorted((r for s in streams for r in s.records), key=lambda r: _time(r, float("inf")))
    # the guards' file of a worker says "session": the metrics' file knows better
    role = "worker" if any(s.process.get("role") == "worker" for s in streams) else "session"
    worker: Optional[str] = None
    start = end = None
    bars: dict[str, Bar] = {}
    spawns: list[tuple[float, str]] = []
    current: Optional[Bar] = None  # the test running
    last = origin
    for record in records:
        t = _time(record, last) - origin
        last = max(last, t + origin)
        event = record.get(events.EVENT)
        if event == events.SESSION_START:
            start = t if start is None else min(start, t)
            worker = record.get("worker") or worker
        elif event == events.SESSION_END:
            end = t
        elif event == events.TEST_START:
            bars[record["test"]] = current = Bar(record["test"], t)
        elif event == events.SPAWN:
            verb = record.get("verb")
            spawns.append((t, f"{record['program']} {verb}" if verb else record["program"]))
        elif event in (events.PHASE, events.FIXTURE, events.FIXTURE_TEARDOWN, events.TEST_END):
            # a wider-scoped fixture's setup names its module or session, not the test that
            # needed it: it counts in the test running then
            wider = event in (events.FIXTURE, events.FIXTURE_TEARDOWN)
            bar = bars.get(record.get("test", "")) or (current if wider else None)
            if bar is None:
                continue
            if event == events.PHASE:
                seconds = float(record["duration"])
                bar.phases.append((record["phase"], record["outcome"], t - seconds, seconds))
                bar.note_outcome(record["phase"], record["outcome"])
            elif event == events.FIXTURE:
                seconds = float(record["duration"])
                bar.fixtures.append((record["fixture"], record["scope"], t - seconds, seconds))
            elif event == events.FIXTURE_TEARDOWN:
                seconds = float(record["duration"])
                bar.teardowns.append((record["fixture"], record["scope"], t - seconds, seconds))
            else:
                bar.end, bar.unfinished = t, False
                current = None
    if start is None and not bars:
        return None  # a guards' file alone: no session of this process was recorded
    final = last - origin
    for bar in bars.values():
        if bar.unfinished:
            bar.end = final
    first = min([start] if start is not None else [b.start for b in bars.values()])
    kind = "worker" if role == "worker" else "session"
    lane = Lane(worker or kind, kind, pid, first, end if end is not None else final)
    lane.bars = sorted(bars.values(), key=lambda b: b.start)
    lane.spawns = spawns
    return lane


def _name(lanes: list[Lane]) -> None:
    """An xdist controller is the session that ran no tests beside workers; each session of
    several that ran one file's tests is named by its file."""
    workers = any(lane.kind == "worker" for lane in lanes)
    sessions = [lane for lane in lanes if lane.kind == "session"]
    for lane in sessions:
        files = {bar.test.split("::", 1)[0] for bar in lane.bars}
        if workers and not lane.bars:
            lane.name = lane.kind = "controller"
        elif len(sessions) > 1 and len(files) == 1:
            lane.kind = "file"
            lane.name = files.pop()


def _order(lane: Lane) -> tuple[int, int, str, float]:
    rank = {"controller": 0, "session": 1, "file": 2, "worker": 3}[lane.kind]
    number = lane.name[2:] if lane.name.startswith("gw") else ""
    return rank, int(number) if number.isdigit() else 0, lane.name, lane.start
