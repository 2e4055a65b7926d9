"""The event stream of a run: tests, phases, fixtures and processes, one JSON line at a time.

``--truegreen-metrics=DIR`` gives every process of the run (the pytest process, each xdist
worker, and through the guards every Python child) its own file in ``DIR/<run id>/``, written
line by line and flushed as it goes, so a killed run leaves every record up to the kill. One
run, one id: an xdist controller makes it and hands it to its workers (``workerinput``), and
``truegreen run`` hands its own to every pytest it starts (``RUN_ID_VAR``). Records
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

from truegreen.core import events, protocol
from truegreen.core.metrics import RUN_ID, new_run_id
from truegreen.guards.hook import quiet
from truegreen.guards.violations import StreamWriter
from truegreen.plugin.listing import HooksOnly
from truegreen.plugin.stash import METRICS_EMIT_KEY, METRICS_RUN_DIR_KEY, per_test

# The per-test records are written for every test of the run, so they are formatted here
# rather than through json.dumps (a new encoder per call, a dict per record): only strings
# need JSON's quoting, each test's node id is quoted once, and durations are written to the
# microsecond with one format rather than rounded and then written in full (both float
# conversions cost more than the rest of a record). Readers see the same JSON values.
_quote = json.JSONEncoder().encode


def _opening(kind: str) -> str:
    """A record of ``kind`` up to its time's value: ``{"event":"phase","t":``."""
    return f'{{{_quote(events.EVENT)}:{_quote(kind)},"t":'


_TEST_START, _PHASE, _TEST_END, _FIXTURE, _FIXTURE_TEARDOWN = map(
    _opening,
    (events.TEST_START, events.PHASE, events.TEST_END, events.FIXTURE, events.FIXTURE_TEARDOWN),
)

# What the xdist controller tells each worker: the run's id.
WORKER_INPUT = "truegreen_metrics_run"


def _run_id(config: pytest.Config) -> str:
    """This run's id: the controller's on an xdist worker, the one ``truegreen run`` gave in
    the environment, else a new one."""
    told = os.environ.pop(protocol.RUN_ID_VAR, None)
    worker = getattr(config, "workerinput", None)
    given = worker.get(WORKER_INPUT) if isinstance(worker, dict) else None
    for candidate in (given, told):
        if isinstance(candidate, str) and RUN_ID.match(candidate):
            return candidate
    return new_run_id()


NAME = "truegreen-metrics"


class MetricsPlugin(HooksOnly):
    """Writes this process's part of the event stream into the metrics directory."""

    def __init__(self, config: pytest.Config, directory: Path) -> None:
        self.config = config
        worker = getattr(config, "workerinput", None)
        self.worker: Optional[str] = worker["workerid"] if worker else None
        self.role = "worker" if worker else "session"
        self.run = _run_id(config)
        # every file of the run in a directory of its own: a reused DIR keeps runs apart
        self.directory = directory.absolute() / self.run
        with quiet():
            self.directory.mkdir(parents=True, exist_ok=True)
        config.stash[METRICS_RUN_DIR_KEY] = str(self.directory)  # for the guards' children
        path = self.directory / f"{self.role}-{os.getpid()}.jsonl"
        self.writer = StreamWriter(str(path), self.role, self.run)
        config.stash[METRICS_EMIT_KEY] = self.emit

    @classmethod
    def register(cls, config: pytest.Config, directory: str) -> None:
        config.pluginmanager.register(cls(config, Path(directory)), NAME)

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """xdist's controller, for each worker it starts: the workers are this run."""
        node.workerinput[WORKER_INPUT] = self.run

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


class Recorder(HooksOnly):
    """The records of each test: its start and end, its phases, its fixtures' setups and
    teardowns.

    The per-test fan-out (plugin/fanout.py) hands it each test's start, reports and end, last
    of the features: a phase's outcome is recorded after the guards have failed it.
    """

    def __init__(self, writer: StreamWriter) -> None:
        self.line = writer.line
        self.started: dict[str, tuple[float, str]] = {}  # node id -> (start, quoted node id)
        self.names: dict[str, str] = {}  # fixture names and scopes, quoted once each
        self.current = ""  # the test whose protocol runs: a fixture's teardown counts in it
        self.tearing: dict[Any, float] = {}  # fixture definition -> its teardown's start

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
        self.current = nodeid
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
            # Finalizers run last-added first: the fixture's own teardown, added by its
            # setup, runs right after this mark, and pytest_fixture_post_finalizer after it.
            fixturedef.addfinalizer(lambda: self._tearing_down(fixturedef))

    def _tearing_down(self, fixturedef: Any) -> None:
        self.tearing[fixturedef] = time.perf_counter()

    def pytest_fixture_post_finalizer(self, fixturedef: Any) -> None:
        start = self.tearing.pop(fixturedef, None)
        if start is None:
            return  # torn down before this recorder saw its setup, or already recorded
        duration = time.perf_counter() - start
        self.line(
            f'{_FIXTURE_TEARDOWN}{time.time()!r},"test":{self._test(self.current)},'
            f'"fixture":{self._quoted(fixturedef.argname)},'
            f'"scope":{self._quoted(fixturedef.scope)},"duration":{duration:.6f}}}'
        )
