"""The event stream of a run: tests, phases, fixtures and processes, one JSON line at a time.

``--truegreen-metrics=DIR`` gives every process of the run (the pytest process, each xdist
worker, and through the guards every Python child) its own file in DIR, written line by
line and flushed as it goes, so a killed run leaves every record up to the kill. Records
carry names, node ids and seconds; never an environment value, an argument or any output.
The schema is core/events.py's, documented in docs/events.md.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any, Optional

import pytest

from truegreen.core import events
from truegreen.guards.hook import quiet
from truegreen.guards.violations import StreamWriter
from truegreen.plugin.stash import per_test

# The per-test records are written for every test of the run, so they are formatted here
# rather than through json.dumps (a new encoder per call, a dict per record): only strings
# need JSON's quoting, each test's node id is quoted once, and durations are written to the
# microsecond with one format rather than rounded and then written in full (both float
# conversions cost more than the rest of a record). Readers see the same JSON values.
_quote = json.JSONEncoder().encode


def _opening(kind: str) -> str:
    """A record of ``kind`` up to its time's value: ``{"event":"phase","t":``."""
    return f'{{{_quote(events.EVENT)}:{_quote(kind)},"t":'


_TEST_START, _PHASE, _TEST_END, _FIXTURE = map(
    _opening, (events.TEST_START, events.PHASE, events.TEST_END, events.FIXTURE)
)


class MetricsPlugin:
    """Writes this process's part of the event stream into the metrics directory."""

    def __init__(self, config: pytest.Config, directory: Path) -> None:
        self.config = config
        worker = getattr(config, "workerinput", None)
        self.worker: Optional[str] = worker["workerid"] if worker else None
        self.role = "worker" if worker else "session"
        self.directory = directory
        with quiet():
            directory.mkdir(parents=True, exist_ok=True)
        self.writer = StreamWriter(str(directory / f"{self.role}-{os.getpid()}.jsonl"), self.role)

    @classmethod
    def register(cls, config: pytest.Config, directory: str) -> None:
        config.pluginmanager.register(cls(config, Path(directory)), "truegreen-metrics")

    def emit(self, event: str, **fields: Any) -> None:
        self.writer.write({events.EVENT: event, "t": time.time(), **fields})

    def pytest_sessionstart(self) -> None:
        self.emit(events.SESSION_START, worker=self.worker)
        # An xdist controller's workers record the tests; it would only echo them.
        if not self.config.pluginmanager.hasplugin("dsession"):
            recorder = Recorder(self.writer)
            self.config.pluginmanager.register(recorder, "truegreen-metrics-tests")
            per_test(self.config).add("metrics", recorder)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.emit(events.SESSION_END, exitstatus=int(session.exitstatus), worker=self.worker)


class Recorder:
    """The records of each test: its start and end, its phases, its fixtures' setups.

    The per-test fan-out (plugin/fanout.py) hands it each test's start, reports and end, last
    of the features: a phase's outcome is recorded after the guards have failed it.
    """

    def __init__(self, writer: StreamWriter) -> None:
        self.line = writer.line
        self.started: dict[str, tuple[float, str]] = {}  # node id -> (start, quoted node id)
        self.names: dict[str, str] = {}  # fixture names and scopes, quoted once each

    def _quoted(self, name: str) -> str:
        found = self.names.get(name)
        if found is None:
            found = self.names[name] = _quote(name)
        return found

    def _test(self, nodeid: str) -> str:
        started = self.started.get(nodeid)
        return _quote(nodeid) if started is None else started[1]

    def on_logstart(self, nodeid: str) -> None:
        now, test = time.time(), _quote(nodeid)
        self.started[nodeid] = (now, test)
        self.line(f'{_TEST_START}{now!r},"test":{test}}}')

    def on_logreport(self, report: pytest.TestReport) -> None:
        outcome = "xfailed" if hasattr(report, "wasxfail") and report.skipped else report.outcome
        self.line(
            f'{_PHASE}{time.time()!r},"test":{self._test(report.nodeid)},'
            f'"phase":{self._quoted(report.when or "")},"outcome":{self._quoted(outcome)},'
            f'"duration":{report.duration:.6f}}}'
        )

    def on_logfinish(self, nodeid: str) -> None:
        now = time.time()
        start, test = self.started.pop(nodeid, (None, _quote(nodeid)))
        duration = "null" if start is None else f"{now - start:.6f}"
        self.line(f'{_TEST_END}{now!r},"test":{test},"duration":{duration}}}')

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(
        self, fixturedef: Any, request: pytest.FixtureRequest
    ) -> Generator[None, Any, Any]:
        start = time.perf_counter()
        try:
            return (yield)
        finally:  # a fixture whose setup raised is recorded too
            duration = time.perf_counter() - start
            self.line(
                f'{_FIXTURE}{time.time()!r},"test":{self._test(request.node.nodeid)},'
                f'"fixture":{self._quoted(fixturedef.argname)},'
                f'"scope":{self._quoted(fixturedef.scope)},"duration":{duration:.6f}}}'
            )
