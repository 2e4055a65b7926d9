"""The event stream of a run: tests, phases, fixtures and processes, one JSON line at a time.

``--truegreen-metrics=DIR`` gives every process of the run (the pytest process, each xdist
worker, and through the guards every Python child) its own file in DIR, written line by
line and flushed as it goes, so a killed run leaves every record up to the kill. Records
carry names, node ids and seconds; never an environment value, an argument or any output.
The schema is in docs/events.md.
"""

from __future__ import annotations

import os
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any, Optional

import pytest

from truegreen.guards.hook import quiet
from truegreen.guards.records import StreamWriter


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
        self.started: dict[str, float] = {}

    @classmethod
    def register(cls, config: pytest.Config, directory: str) -> None:
        config.pluginmanager.register(cls(config, Path(directory)), "truegreen-metrics")

    def emit(self, event: str, **fields: Any) -> None:
        with quiet():
            self.writer.write({"event": event, "t": time.time(), **fields})

    def pytest_sessionstart(self) -> None:
        self.emit("session_start", worker=self.worker)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.emit("session_end", exitstatus=int(session.exitstatus), worker=self.worker)

    @property
    def controller(self) -> bool:
        """An xdist controller: its workers record the tests; it would only echo them."""
        return self.config.pluginmanager.hasplugin("dsession")

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        if self.controller:
            return
        self.started[nodeid] = time.time()
        self.emit("test_start", test=nodeid)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.controller:
            return
        outcome = "xfailed" if hasattr(report, "wasxfail") and report.skipped else report.outcome
        self.emit("phase", test=report.nodeid, phase=report.when, outcome=outcome,
                  duration=round(report.duration, 6))  # fmt: skip

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        if self.controller:
            return
        start = self.started.pop(nodeid, None)
        self.emit("test_end", test=nodeid,
                  duration=round(time.time() - start, 6) if start else None)  # fmt: skip

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(
        self, fixturedef: Any, request: pytest.FixtureRequest
    ) -> Generator[None, Any, None]:
        start = time.perf_counter()
        yield
        self.emit(
            "fixture",
            test=request.node.nodeid,
            fixture=fixturedef.argname,
            scope=fixturedef.scope,
            duration=round(time.perf_counter() - start, 6),
        )
