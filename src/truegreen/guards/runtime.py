"""One Guard per process: the policy, who is running now, and where violations go."""

from __future__ import annotations

import os

from truegreen.guards import hook

# A guarded child imports this at start-up: what only a record, a spawn or the session needs
# (the records, the event names, the running test) is imported when it is first needed.
TYPE_CHECKING = False  # typing itself is too dear for a child's start-up
if TYPE_CHECKING:
    from typing import Any, Callable, Optional

    from truegreen.guards.policy import Policy
    from truegreen.guards.violations import Spawn, StreamWriter, Unguarded, Violation


class Guard:
    """The guards of one process.

    ``where`` is None between the phases truegreen watches (pytest's own work); the
    listeners ignore events then. In a child process it is always set.
    """

    def __init__(self, policy: Policy, *, role: str, project: Optional[str] = None) -> None:
        self.policy = policy
        self.role = role
        self.project = project
        self.test: Optional[str] = None
        self.where: Optional[str] = None
        self.extra_hosts: tuple[tuple[str, Optional[int]], ...] = ()
        self.network_mode = policy.network
        self.violations: list[Violation] = []
        self.spawns: list[Spawn] = []
        self.unguarded: list[Unguarded] = []
        self.listening: set[tuple[str, int]] = set()  # (tcp|udp, port) in this process
        self.remote: set[tuple[str, int]] = set()  # ... in other processes of this run
        self.spawned = False
        # The failure hints: while a sealed test runs, ``home`` is its home (with a trailing
        # separator) and ``home_reads`` the paths under it that the test opened to read.
        self.home: Optional[str] = None
        self.home_reads: set[str] = set()
        self.notes_reads = False  # whether the hints are on: without them no read is noted
        self.tracking: Any = None  # the socket methods network.track_listeners replaced
        # Finer than ``where`` for a violation (the session's "session fixture 'db'"): asked
        # only when one happens, so no hook has to follow every fixture of every test.
        self.locate: Optional[Callable[[], Optional[str]]] = None
        # Told the real path of each write refused under the real home, as it is refused:
        # the session compares the directory it was refused in at its end.
        self.on_refused: Optional[Callable[[str], None]] = None
        # Told of each ``subprocess.Popen`` as it starts, with (test, where, words): the
        # session's watch for the children a test leaves running (guards/leftovers.py).
        self.on_popen: Optional[Callable[[Optional[str], Optional[str], list[str]], None]] = None
        # ... and of each child started by ``os.posix_spawn`` or ``os.spawn*`` (a pid only).
        self.on_spawn: Optional[Callable[[Optional[str], Optional[str], list[str]], None]] = None
        self._offsets: dict[str, int] = {}
        self._fork_ready = False
        # This process's stream in the run's directory, made at its first record.
        self.sink: Optional[StreamWriter] = None
        self._stream = self._stream_path()

    def _stream_path(self) -> str:
        run_dir = self.policy.run_dir
        return os.path.join(run_dir, f"{self.role}-{os.getpid()}.jsonl") if run_dir else ""

    def after_fork(self) -> None:
        """In a forked child: a stream of its own; the parent keeps what it recorded. Its test
        is the one running as it is forked (a fork server forks for the test that asks)."""
        self.role = "child"
        self.on_popen = self.on_spawn = None  # the session watches its children, not a fork's
        if self.policy.run_dir:
            from truegreen.guards.current import UNKNOWN, running

            now = running(self.policy.run_dir)
            if now != UNKNOWN:
                self.test = now
                self.where = now or "outside any test"
        self.violations, self.spawns, self.unguarded = [], [], []
        self._offsets = {}
        self.sink = None
        self._stream = self._stream_path()

    def before_fork(self) -> None:
        """About to fork: import here, once, what a forked copy needs to record what it does
        (the records and their writer, the running test, the user's line, the programs that
        dial out). Left lazy, every copy would import them again before its ``exec``: 1-2 ms a
        program for a library that forks and execs in Python (``sh``, ``pexpect``)."""
        if self._fork_ready:
            return
        self._fork_ready = True
        import json  # noqa: F401 - the records' writer

        from truegreen.guards import children, current, sites, violations  # noqa: F401

        if self.policy.network != "allow":
            from truegreen.guards import netprograms  # noqa: F401

    def emit(self, record: dict[str, Any]) -> None:
        if self._stream:
            if self.sink is None:
                from truegreen.guards.violations import StreamWriter

                self.sink = StreamWriter(self._stream, self.role)
            with hook.quiet():
                self.sink.write(record)
                if self.role == "child":
                    # The session reads its children when the run's directory changed: an
                    # append to a stream that already exists changes nothing there.
                    try:  # noqa: SIM105 - no contextlib in a child's start-up
                        os.utime(self.policy.run_dir)
                    except OSError:
                        pass

    def site(self) -> str:
        from truegreen.guards.sites import user_site

        return user_site(self.project)

    def attributed(self) -> tuple[Optional[str], Optional[str]]:
        """(test, where) of a record made now. A child's is the test the session is running
        now: a process that outlived the test that started it acts for the test running, and
        ``where`` names the one that started it."""
        test, where = self.test, self.where
        if self.role != "child" or not self.policy.run_dir:
            return test, where
        from truegreen.guards.current import UNKNOWN, running

        now = running(self.policy.run_dir)
        if now in (UNKNOWN, test):
            return test, where
        started = (
            f"in a process {test} started" if test else "in a process started outside any test"
        )
        return now, f"{now or 'outside any test'}, {started}"

    def report(
        self, kind: str, operation: str, target: str, *, blocked: bool, mode: Optional[str] = None
    ) -> Violation:
        test, where = self.attributed()
        if where is not None and where == test and self.locate is not None:
            where = self.locate() or where
        from truegreen.guards.violations import Violation

        violation = Violation(
            kind=kind,
            test=test,
            where=where or "outside any test",
            operation=operation,
            target=target,
            site=self.site(),
            blocked=blocked,
            pid=os.getpid(),
            mode=mode,
        )
        self.violations.append(violation)
        self.emit(violation.record())
        return violation

    def record_spawn(self, program: str, verb: Optional[str], anonymous: bool = False) -> None:
        from truegreen.guards.violations import Spawn

        spawn = Spawn(self.attributed()[0], program, verb, self.site(), os.getpid(), anonymous)
        self.spawned = True
        self.spawns.append(spawn)
        self.emit(spawn.record())

    def record_unguarded(self, program: str, reason: str) -> None:
        """A child this process starts that the guards will not reach."""
        from truegreen.guards.violations import Unguarded

        item = Unguarded(self.attributed()[0], program, reason, os.getpid())
        self.unguarded.append(item)
        self.emit(item.record())

    def note_read(self, path: Any) -> None:
        """Remember an open for reading under the sealed home, if one is set: the failure
        hints name those that did not exist."""
        home = self.home
        if home is None or isinstance(path, int):
            return
        if type(path) is not str:
            path = os.fsdecode(os.fspath(path))
        if path.startswith(home):
            self.home_reads.add(path)

    def record_listener(self, protocol: str, port: int) -> None:
        from truegreen.core import events

        self.listening.add((protocol, port))
        self.emit({events.EVENT: events.LISTEN, "protocol": protocol, "port": port,
                   "pid": os.getpid()})  # fmt: skip

    def ingest(self) -> list[dict[str, Any]]:
        """Read what other processes of this run appended since the last call.

        Violations and spawns join this process's lists; every record is returned.
        """
        import json

        run_dir = self.policy.run_dir
        if not run_dir:
            return []
        own = self._stream
        fresh: list[dict[str, Any]] = []
        with hook.quiet():
            for name in sorted(os.listdir(run_dir)):
                path = os.path.join(run_dir, name)
                if not name.endswith(".jsonl") or path == own:
                    continue
                with open(path, "rb") as handle:
                    handle.seek(self._offsets.get(path, 0))
                    data = handle.read()
                complete = data[: data.rfind(b"\n") + 1]
                self._offsets[path] = self._offsets.get(path, 0) + len(complete)
                for line in complete.splitlines():
                    try:
                        record = json.loads(line)
                    except (ValueError, RecursionError):  # not a record of ours: skip it
                        continue
                    if type(record) is dict:
                        fresh.append(record)
        if not fresh:
            return fresh
        from truegreen.core import events
        from truegreen.guards.violations import Spawn, Unguarded, Violation, from_record

        for record in fresh:
            if record.get(events.EVENT) == events.LISTEN:
                if events.problem(record) is None:
                    self.remote.add((record["protocol"], record["port"]))
                continue
            item = from_record(record) if self.role == "session" else None
            if isinstance(item, Violation):
                self.violations.append(item)
            elif isinstance(item, Spawn):
                self.spawns.append(item)
            elif isinstance(item, Unguarded):
                self.unguarded.append(item)
        return fresh
