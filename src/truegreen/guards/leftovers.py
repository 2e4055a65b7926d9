"""Child processes a test started and left running: each kept weakly, polled after its test.

The subprocess guard hands :meth:`Leftovers.started` each ``subprocess.Popen`` as it starts
(asyncio's subprocesses are Popens too): the Popen object is found on the stack, in its own
``_execute_child`` frame, and kept by a weak reference with the words it runs and who started
it. After the test each child it started is polled (``Popen.poll``, a ``waitpid`` with
``WNOHANG``: no scan of the process table), so a test that starts nothing pays nothing. One
still running after a short grace (a child the test killed without waiting for it is ending)
is a leftover. A child started while a wider-scoped fixture was being set up (or outside any
test) belongs to that fixture, not to the test whose setup ran it; it is looked at when the
session ends, with every leftover still running, and all of them are stopped then.
"""

from __future__ import annotations

import os
import shlex
import signal
import sys
import time
import weakref
from typing import Any, Callable, Optional

from truegreen.guards.hook import quiet

GRACE = 0.25  # seconds a child found running after its test has to end on its own
STOP_WAIT = 1.0  # seconds between the polite signal and the kill


class Child:
    """One child process: who started it, what it runs, and its Popen (weakly)."""

    __slots__ = ("fate", "owner", "pid", "ref", "test", "words")

    def __init__(
        self,
        test: Optional[str],
        owner: str,
        words: list[str],
        popen: Any,
        pid: Optional[int] = None,
    ) -> None:
        self.test = test  # the test running as it started (None outside any test)
        self.owner = owner  # the test's node id, or "session fixture 'db'", "collection"
        self.words = words
        # The Popen, or None for a child known by its pid only (os.posix_spawn, os.spawn*).
        self.ref = weakref.ref(popen) if popen is not None else None
        self.pid: Optional[int] = pid
        self.fate = ""  # what became of a leftover: see Leftovers.stop and Leftovers.finish

    @property
    def wider(self) -> bool:
        """Whether a wider-scoped fixture (or no test) started it."""
        return self.owner != self.test

    def running(self) -> bool:
        """Whether it runs still; reaps it when it ended (as its own ``poll`` would)."""
        if self.ref is None:
            try:
                return os.waitpid(self.pid or -1, os.WNOHANG)[0] == 0
            except OSError:  # reaped already (by the test), or not our child
                return False
        popen: Any = self.ref()
        pid = getattr(popen, "pid", None)
        if pid is None:  # collected, or it never started (the program was not found)
            return False
        self.pid = pid
        try:
            return popen.poll() is None
        except OSError:
            return False

    def command(self) -> str:
        return shlex.join(self.words) if self.words else "?"

    def describe(self) -> str:
        return f"pid {self.pid}: {self.command()}"


def _popen_on_stack() -> Any:
    """The ``subprocess.Popen`` being started on this thread: the ``self`` of the
    ``_execute_child`` frame that raised the audit event (a few frames up)."""
    subprocess = sys.modules.get("subprocess")
    frame: Any = sys._getframe(2)
    for _ in range(8):
        if frame is None or subprocess is None:
            return None
        if frame.f_code.co_name == "_execute_child":
            found = frame.f_locals.get("self")
            return found if isinstance(found, subprocess.Popen) else None
        frame = frame.f_back
    return None


def still_running(children: list[Child], grace: float = GRACE) -> list[Child]:
    """Those of ``children`` still running once ``grace`` seconds have passed (no wait at all
    when none runs now)."""
    alive = [c for c in children if c.running()]
    deadline = time.monotonic() + grace
    while alive and time.monotonic() < deadline:
        time.sleep(0.01)
        alive = [c for c in alive if c.running()]
    return alive


def _signal(child: Child, kill: bool) -> None:
    try:
        if child.ref is None:
            os.kill(child.pid or -1, signal.SIGKILL if kill else signal.SIGTERM)
            if kill:
                os.waitpid(child.pid or -1, 0)
            return
        popen: Any = child.ref()
        if popen is not None:
            if kill:
                popen.kill()
                popen.wait(timeout=5)
            else:
                popen.terminate()
    except Exception:  # it ended since, or will not: nothing more to do here
        pass


def stop(children: list[Child], wait: float = STOP_WAIT) -> None:
    """Terminate, wait up to ``wait`` seconds, kill: each child ends and is reaped."""
    for child in children:
        _signal(child, kill=False)
    for child in still_running(children, wait):
        _signal(child, kill=True)


def children_of_this_process() -> set[int]:
    """The pids of this process's children, from Linux ``/proc`` (empty elsewhere)."""
    found: set[int] = set()
    with quiet():
        try:
            tasks = os.listdir("/proc/self/task")
        except OSError:
            return found
        for task in tasks:
            try:
                with open(f"/proc/self/task/{task}/children", "rb") as handle:
                    found.update(int(pid) for pid in handle.read().split())
            except (OSError, ValueError):
                continue
    return found


def _command_line(pid: int) -> list[str]:
    with quiet():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                return [os.fsdecode(w) for w in handle.read().split(b"\0") if w]
        except OSError:
            return []


class Leftovers:
    """The children this session started, by owner, and the leftovers found so far."""

    def __init__(self, locate: Optional[Callable[[], Optional[str]]] = None) -> None:
        self.locate = locate  # "session fixture 'db'" while a wider fixture is set up
        self.pending: list[Child] = []  # started by the running test, not yet looked at
        self.wider: list[Child] = []  # started by wider fixtures or outside any test
        self.found: list[Child] = []  # left running by their test, reported after it
        # os.posix_spawn and os.spawn* return a pid the audit hook never sees: (test, owner,
        # words, the children before) of each, until the children after tell which it was.
        self.raw: list[tuple[Optional[str], str, list[str], set[int]]] = []

    @property
    def waiting(self) -> bool:
        """Whether the running test started a child that was not looked at yet."""
        return bool(self.pending or self.raw)

    def _owner(self, test: Optional[str], where: Optional[str]) -> str:
        located = self.locate() if self.locate is not None and test else None
        return located or where or test or "outside any test"

    def started(self, test: Optional[str], where: Optional[str], words: list[str]) -> None:
        """A ``subprocess.Popen`` is starting ``words`` (called from the audit hook)."""
        try:
            popen = _popen_on_stack()
            if popen is not None:
                self._add(Child(test, self._owner(test, where), words, popen))
        except Exception:  # a watch, not a guard: whatever went wrong, the program starts
            return

    def spawned(self, test: Optional[str], where: Optional[str], words: list[str]) -> None:
        """A child known by its pid only is starting ``words`` (called from the audit hook)."""
        try:
            before = children_of_this_process()
            if before or os.path.isdir("/proc/self/task"):  # elsewhere it cannot be told apart
                self.raw.append((test, self._owner(test, where), words, before))
        except Exception:  # a watch, not a guard: whatever went wrong, the program starts
            return

    def _add(self, child: Child) -> None:
        (self.wider if child.wider else self.pending).append(child)

    def _resolve(self) -> None:
        """The children started by pid since the last look: each new child of this process
        (but those known already) goes to the latest of them that started before it."""
        if not self.raw:
            return
        now = children_of_this_process()
        known: set[Optional[int]] = set()
        for child in (*self.pending, *self.wider, *self.found):
            popen = child.ref() if child.ref is not None else None
            known.add(getattr(popen, "pid", None) if child.ref is not None else child.pid)
        for test, owner, words, before in reversed(self.raw):
            new = sorted(now - before - known)
            known.update(new)
            for pid in new:
                told = words if len(new) == 1 else (_command_line(pid) or words)
                self._add(Child(test, owner, told, None, pid))
        self.raw = []

    def check(self, grace: float = GRACE) -> list[Child]:
        """The children the test that just ended started and left running."""
        self._resolve()
        if not self.pending:
            return []
        pending, self.pending = self.pending, []
        left = still_running(pending, grace)
        self.found.extend(left)
        return left

    def finish(self) -> list[Child]:
        """At the session's end: every leftover (found after its test, or of a wider fixture)
        stopped if it still runs; each found one, and each wider one that ran still, returned
        with its fate."""
        self._resolve()
        wider = still_running([*self.wider, *self.pending])
        self.wider, self.pending = [], []
        running = [c for c in self.found if not c.fate and c.running()]
        for child in self.found:
            if not child.fate:
                child.fate = "ended on its own before the session's end"
        for child in (*running, *wider):
            child.fate = "killed at the session's end"
        stop([*running, *wider])
        return [*self.found, *wider]
