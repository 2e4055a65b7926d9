"""``truegreen run --isolate-files``: each test file in a pytest process of its own.

One collecting session finds the files (and makes the run's temporary base); then each
file's session runs forked from the warm server or as a new process, at most ``jobs`` at a
time, under the file timeout and the run's deadline, retried when it fails (never when a
timeout or a signal ended it: relaunching a runaway doubles the damage). A file's outcomes
are counted from the event stream its process recorded.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Optional

from truegreen.core import protocol
from truegreen.core.errors import DataError
from truegreen.core.metrics import outcome_counts, read_stream
from truegreen.runner.basetemp import RunBase, session_dir
from truegreen.runner.process import PytestProcess, TimedOut
from truegreen.runner.procs import wait_until


@dataclass
class FileRun:
    """One test file's pytest process (and its retries)."""

    path: str
    status: int = 0
    output: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    timed_out: bool = False
    first_failure: Optional[str] = None  # the output of a failed attempt that a retry passed

    @property
    def flaky(self) -> bool:
        return self.first_failure is not None and self.status == 0


@dataclass(frozen=True)
class Limits:
    """The run's deadline (epoch seconds), each file's timeout (seconds), the reruns of a
    failing file, and the files at a time."""

    deadline: Optional[float] = None
    file_timeout: Optional[float] = None
    retries: int = 0
    jobs: int = 1


def files_of(units: Sequence[str]) -> list[str]:
    """The test files of these node ids, in collection order."""
    files: dict[str, None] = {}
    for nodeid in units:
        files.setdefault(nodeid.split("::", 1)[0])
    return list(files)


def _counts(metrics: Path, pid: int) -> dict[str, int]:
    """A file's outcomes, from the event stream its pytest process recorded (and its xdist
    workers', if the user asked for some)."""
    try:
        streams = [read_stream(p) for p in metrics.glob(f"session-{pid}.jsonl")]
        streams += [
            stream
            for stream in map(read_stream, metrics.glob("worker-*.jsonl"))
            if stream.process.get("ppid") == pid
        ]
        return outcome_counts(streams)
    except (OSError, DataError):  # a process killed before or while it wrote
        return {}


class FileSessions:
    """The files of one isolated run, as a context: entering collects them (no files when
    the deadline ended the collection) and holds the run's temporary base; leaving releases
    it, removed where pytest would have removed a session's, by ``status``."""

    def __init__(
        self, pytest: PytestProcess, metrics: Path, limits: Limits, run_id: str = ""
    ) -> None:
        self.pytest = pytest
        self.metrics = metrics
        self.run_dir = metrics / run_id  # where the sessions' streams go: their run's id
        self.limits = limits
        self.files: list[str] = []
        self.status = 1  # an exception keeps the base, as a failed run does
        self._work = Path(tempfile.mkdtemp(prefix="truegreen-run-reports-"))
        self._base = RunBase(None)
        self._lock: Optional[Path] = None

    def __enter__(self) -> FileSessions:
        request = protocol.Request(basetemp_out=str(self._work / "basetemp.json"))
        try:
            units = self.pytest.collect_units(request.argv(), deadline=self.limits.deadline)
        except TimedOut:
            return self
        except BaseException:
            shutil.rmtree(self._work, ignore_errors=True)
            raise
        self.files = files_of(list(units))
        if self.files:
            self._base = RunBase.read(self._work / "basetemp.json")
            self._lock = self._base.hold()
        return self

    def __exit__(
        self,
        kind: Optional[type[BaseException]],
        value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        self._base.release(self._lock, self.status)
        shutil.rmtree(self._work, ignore_errors=True)

    def run(self) -> list[FileRun]:
        """Every file's session (and its retries), ``jobs`` at a time, in file order."""
        with ThreadPoolExecutor(self.limits.jobs) as pool:
            return list(pool.map(self._one, self.files))

    def _attempt(self, path: str, number: int) -> FileRun:
        name = session_dir(path, self.files.index(path), number)
        log = self._work / f"{name}.out"
        limits = self.limits
        limit = limits.deadline
        if limits.file_timeout:
            ends = (limits.deadline, time.time() + limits.file_timeout)
            limit = min(x for x in ends if x is not None)
        request = protocol.Request(only_file=path)
        after = [*request.argv(), f"--truegreen-metrics={self.metrics}",
                 "--truegreen-set", "allow-empty=true", *self._base.option(name)]  # fmt: skip
        child = self.pytest.start(self.pytest.argv(after=after), str(log))
        status, timed_out = wait_until(child, limit, everything=False)
        output = log.read_bytes().decode(errors="replace") if log.exists() else ""
        return FileRun(path, status, output, _counts(self.run_dir, child.pid), timed_out)

    def _one(self, path: str) -> FileRun:
        result = self._attempt(path, 0)
        retries = 0 if result.timed_out or result.status < 0 else self.limits.retries
        for number in range(1, retries + 1):
            if result.status in (0, 5):
                break
            failed_output = result.output
            result = self._attempt(path, number)
            result.first_failure = failed_output
        return result
