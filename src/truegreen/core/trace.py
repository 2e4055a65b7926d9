"""A run as Chrome trace-event JSON: the file Perfetto (ui.perfetto.dev) and chrome://tracing
open.

The Trace Event Format's JSON object form: ``{"traceEvents": [...], "displayTimeUnit": "ms"}``.
Each pytest process of the run is a process of the trace (its ``pid``, named by metadata
events ``"ph": "M"`` as the timeline names its lane: ``gw0``, ``controller``, a file), with one
thread. Its session, each test, each test's phases and each fixture setup are complete events
(``"ph": "X"``, ``ts`` and ``dur`` in microseconds from the run's first record), nested as they
ran; a program a test started is an instant event (``"ph": "i"``).
"""

from __future__ import annotations

from typing import Any, Callable

from truegreen.core.metrics import Stream
from truegreen.core.timeline import Lane, build


def _us(seconds: float) -> int:
    return max(0, round(seconds * 1_000_000))


def _complete(
    name: str, category: str, start: float, length: float, lane: Lane, **args: Any
) -> dict[str, Any]:
    event = {"name": name, "cat": category, "ph": "X", "ts": _us(start),
             "dur": _us(length), "pid": lane.pid, "tid": lane.pid}  # fmt: skip
    if args:
        event["args"] = args
    return event


def _within(low: float, high: float) -> Callable[[float, float], tuple[float, float]]:
    """A phase or a fixture setup kept inside its test (the clocks of their records differ by
    microseconds): the viewers nest an event only in one that contains it."""

    def inside(start: float, length: float) -> tuple[float, float]:
        begin = min(max(start, low), high)
        return begin, max(0.0, min(start + length, high) - begin)

    return inside


def trace(streams: list[Stream], run: str = "") -> dict[str, Any]:
    """The trace-event document of these streams."""
    timeline = build(streams)
    found: list[dict[str, Any]] = []
    for index, lane in enumerate(timeline.lanes):
        ids = {"pid": lane.pid, "tid": lane.pid}
        found += [
            {"name": "process_name", "ph": "M", **ids, "args": {"name": lane.name}},
            {"name": "process_sort_index", "ph": "M", **ids, "args": {"sort_index": index}},
            {"name": "thread_name", "ph": "M", **ids, "args": {"name": f"pid {lane.pid}"}},
        ]
        found.append(_complete("session", "session", lane.start, lane.end - lane.start, lane,
                               process=lane.name, kind=lane.kind))  # fmt: skip
        for bar in lane.bars:
            seconds = bar.end - bar.start
            found.append(_complete(bar.test, "test", bar.start, seconds, lane,
                                   outcome=bar.outcome, seconds=round(seconds, 6),
                                   unfinished=bar.unfinished))  # fmt: skip
            inside = _within(bar.start, bar.end)
            spans = {}  # a fixture's setup nests in the setup phase, its teardown in teardown
            for phase, outcome, start, length in bar.phases:
                event = _complete(phase, "phase", *inside(start, length), lane,
                                  outcome=outcome, test=bar.test)  # fmt: skip
                found.append(event)
                low = event["ts"] / 1e6
                spans[phase] = _within(low, low + event["dur"] / 1e6)
            for kind, phase, fixtures in (("fixture", "setup", bar.fixtures),
                                          ("teardown", "teardown", bar.teardowns)):  # fmt: skip
                nest = spans.get(phase, inside)
                for name, scope, start, length in fixtures:
                    found.append(_complete(f"{kind} {name}", "fixture", *nest(start, length),
                                           lane, scope=scope, test=bar.test))  # fmt: skip
        for when, program in lane.spawns:
            found.append({"name": program, "cat": "program", "ph": "i", "s": "t",
                          "ts": _us(when), "pid": lane.pid, "tid": lane.pid})  # fmt: skip
    return {
        "traceEvents": found,
        "displayTimeUnit": "ms",
        "otherData": {
            "generator": "truegreen metrics",
            "run": run,
            "origin_epoch_seconds": timeline.origin,
        },
    }
