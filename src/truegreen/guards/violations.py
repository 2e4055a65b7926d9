"""What the guards record: violations and spawns, in memory and as event-stream lines."""

from __future__ import annotations

import os
import time

from truegreen.core import events
from truegreen.guards.hook import quiet

TYPE_CHECKING = False  # typing itself is too dear for a child's start-up
if TYPE_CHECKING:
    from typing import Any, Optional

# truegreen's own I/O goes through the functions as they were at import: a test that
# monkeypatches os.open or os.write cannot break the stream (house rule 4).
_open, _write = os.open, os.write


class Violation:
    """One leak: a write, a connection or a program, attributed to a test or a phase."""

    __slots__ = ("blocked", "kind", "mode", "operation", "pid", "site", "target", "test", "where")
    FIELDS = ("blocked", "kind", "operation", "pid", "site", "target", "test", "where")

    def __init__(
        self,
        kind: str,  # "write" | "read" | "network" | "program"
        test: Optional[str],  # the node id it counts against; None outside any test
        where: str,  # the test, "collection", or "session fixture 'db'"
        operation: str,  # "open for writing", "connect to", "start", ...
        target: str,  # the path, host:port or program
        site: str,  # file:line of the user code that did it
        blocked: bool,
        pid: int,
        mode: Optional[str] = None,  # the guard's mode: "warn" does not fail the test
    ) -> None:
        self.kind, self.test, self.where, self.operation = kind, test, where, operation
        self.target, self.site, self.blocked, self.pid = target, site, blocked, pid
        self.mode = mode

    @property
    def warning(self) -> bool:
        """Whether it is reported without failing anything (its guard's mode is ``warn``)."""
        return self.mode == "warn"

    def describe(self) -> str:
        action = "blocked" if self.blocked else "did"
        origin = "" if self.pid == os.getpid() else f" (in child process {self.pid})"
        return f"{self.kind}: {action} {self.operation} {self.target} at {self.site}{origin}"

    def record(self) -> dict[str, Any]:
        record = {
            events.EVENT: events.VIOLATION,
            "t": time.time(),
            **{f: getattr(self, f) for f in self.FIELDS},
        }
        if self.mode is not None:
            record["mode"] = self.mode
        return record


class Spawn:
    """One program started by a test: its basename and, for git, the verb, and whether it
    needed an author identity that nothing configured (``anonymous``)."""

    __slots__ = ("anonymous", "pid", "program", "site", "test", "verb")
    FIELDS = __slots__

    def __init__(
        self,
        test: Optional[str],
        program: str,
        verb: Optional[str],
        site: str,
        pid: int,
        anonymous: bool = False,
    ) -> None:
        self.test, self.program, self.verb, self.site, self.pid = test, program, verb, site, pid
        self.anonymous = anonymous

    @property
    def name(self) -> str:
        return f"{self.program} {self.verb}" if self.verb else self.program

    def record(self) -> dict[str, Any]:
        fields = {f: getattr(self, f) for f in self.FIELDS}
        return {events.EVENT: events.SPAWN, "t": time.time(), **fields}


class Unguarded:
    """A child process the guards do not reach, and why (``python -I``, not a Python program)."""

    __slots__ = ("pid", "program", "reason", "test")
    FIELDS = __slots__

    def __init__(self, test: Optional[str], program: str, reason: str, pid: int) -> None:
        self.test, self.program, self.reason, self.pid = test, program, reason, pid

    def record(self) -> dict[str, Any]:
        fields = {f: getattr(self, f) for f in self.FIELDS}
        return {events.EVENT: events.UNGUARDED, "t": time.time(), **fields}


def header(role: str, run: Optional[str] = None) -> dict[str, Any]:
    """The first record of every process's stream."""
    return events.header(time.time(), os.getpid(), os.getppid(), role, run)


_READ = frozenset({events.VIOLATION, events.SPAWN, events.UNGUARDED})


def from_record(data: dict[str, Any]) -> Optional[object]:
    """A Violation, Spawn or Unguarded back from its stream line; None for other records and
    for records that do not hold to the schema."""
    kind = data.get(events.EVENT)
    if kind not in _READ or events.problem(data) is not None:
        return None
    if kind == events.VIOLATION:
        mode = data.get("mode")
        fields = {f: data[f] for f in Violation.FIELDS}
        return Violation(**fields, mode=mode if isinstance(mode, str) else None)
    if kind == events.UNGUARDED:
        return Unguarded(**{f: data[f] for f in Unguarded.FIELDS})
    fields = {f: data[f] for f in Spawn.FIELDS if f != "anonymous"}
    return Spawn(**fields, anonymous=bool(data.get("anonymous")))


class StreamWriter:
    """Appends one JSON line per record to this process's file, flushed as it is written.

    The file is created at the first record, so a process with nothing to say leaves none.
    """

    def __init__(self, path: str, role: str, run: Optional[str] = None) -> None:
        self.path = path
        self.role = role
        self.run = run  # the run's id, in the header (the metrics' writer knows it)
        self.fd = -1

    def write(self, record: dict[str, Any]) -> None:
        import json  # only once there is something to write

        self.line(json.dumps(record, separators=(",", ":")))

    def line(self, text: str) -> None:
        """Append one record already encoded as a JSON object, in one write of its own."""
        if self.fd < 0:
            self._open()
        _write(self.fd, (text + "\n").encode("utf-8"))

    def _open(self) -> None:
        import json

        # Two writers of one process (the guards and the metrics) share its file: whoever
        # creates it writes the header.
        flags = os.O_WRONLY | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
        with quiet():  # truegreen's own file: the guards look away
            try:
                self.fd = _open(self.path, flags | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                self.fd = _open(self.path, flags)
                return
        self.line(json.dumps(header(self.role, self.run), separators=(",", ":")))
