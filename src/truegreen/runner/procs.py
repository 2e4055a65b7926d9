"""Process trees: start pytest sealed, find every descendant, end them all at a deadline.

A child that calls ``setsid`` leaves the process group, and one whose parent died is
reparented away from it; on Linux truegreen makes itself a *child subreaper*, so orphans
come back to it and stay findable, and it finds descendants through ``/proc``
(:func:`truegreen.guards.procfs.descendants`). A subreaper must also collect the orphans it
adopts as they exit (:class:`Subreaper`), and never the children a ``Popen`` of its own waits
for (:func:`popen` names those).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any, Optional, Protocol

from truegreen.core.protocol import REAL_HOME_VAR
from truegreen.guards.mutant import MUTANT_VAR
from truegreen.guards.procfs import descendants, table

# Variables the sealed runner passes through; everything else is dropped.
ALLOWED = (
    "PATH", "PATHEXT", "SYSTEMROOT", "SYSTEMDRIVE", "COMSPEC", "WINDIR", "TMPDIR", "TEMP",
    "TMP", "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH", "VIRTUAL_ENV",
)  # fmt: skip


def sealed_environment(
    environ: Mapping[str, str], home: str, keep: Sequence[str] = ()
) -> dict[str, str]:
    """The environment pytest starts in: PATH and a short allowlist, a fresh HOME, no git
    config, UTC, C.UTF-8, and the variables named in ``keep``; the plugin is told the real
    home (``REAL_HOME_VAR``), which its guards protect.

    truegreen's own settings (``TRUEGREEN_*``) are the same inside the seal as outside it, and
    an ablated run's mutant (``MUTANT_VAR``) goes in too, so ablation reaches the pytest that
    ``truegreen run`` starts."""
    from truegreen.core.config import ENV_PREFIX  # here: the settings' parser is not light

    env = {name: environ[name] for name in (*ALLOWED, *keep) if name in environ}
    env.update({n: v for n, v in environ.items() if n.startswith(ENV_PREFIX) or n == MUTANT_VAR})
    env.update(
        HOME=home,
        USERPROFILE=home,
        TZ="UTC",
        LANG="C.UTF-8",
        TERM="dumb",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_SYSTEM=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
    )
    env[REAL_HOME_VAR] = environ.get(REAL_HOME_VAR) or environ.get("HOME") or home
    for name in keep:
        if name in environ:
            env[name] = environ[name]
    return env


def become_subreaper() -> bool:
    """Linux: orphaned descendants are reparented to this process instead of init."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(36, 1, 0, 0, 0)) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


class Child(Protocol):
    """A process being waited for: a ``subprocess.Popen``, or a fork server's child."""

    @property
    def pid(self) -> int: ...

    def poll(self) -> Optional[int]: ...

    def wait(self, timeout: Optional[float] = None) -> int: ...


def _signal_all(pids: Sequence[int], signum: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, signum)
        except OSError:
            continue


def end_tree(process: Child, *, everything: bool, grace: float = 3.0) -> None:
    """SIGTERM the process, its group and every descendant; SIGKILL what is left.

    With ``everything`` (the whole run's deadline) also every other descendant of this
    process: orphans that left the group and were reparented to this subreaper.
    """
    end_trees([process], everything=everything, grace=grace)


def end_trees(processes: Sequence[Child], *, everything: bool = False, grace: float = 3.0) -> None:
    """:func:`end_tree` for several processes at once, under one grace period."""
    # never signal our own process group (pid 0) or everything (-1)
    processes = [process for process in processes if process.pid > 0]
    if not processes:
        return

    def tree() -> list[int]:
        mine = descendants(os.getpid()) if everything else []
        below = [pid for process in processes for pid in (process.pid, *descendants(process.pid))]
        return sorted({*below, *mine})

    first = tree()
    for process in processes:
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGTERM)
    _signal_all(first, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(p.poll() is None for p in processes):
        time.sleep(0.05)
    last = sorted({*first, *tree()})
    for process in processes:
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
    _signal_all(last, signal.SIGKILL)
    for process in processes:
        process.wait()
    _wait_gone(last, reap=everything)


def alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (POSIX: ``kill(pid, 0)``, which sends nothing)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _wait_gone(pids: Sequence[int], *, reap: bool, timeout: float = 2.0) -> None:
    """Return once every signalled process is gone, not merely sent SIGKILL: a killed
    process lingers until the kernel tears it down and its parent (or this subreaper, which
    inherits the orphans) collects it. Bounded: a process stuck in the kernel is left."""
    deadline = time.monotonic() + timeout
    while True:
        if reap:
            reap_orphans()
        if not any(alive(pid) for pid in pids) or time.monotonic() >= deadline:
            return
        time.sleep(0.02)


# The children this process started and waits for itself (pid -> its Popen), which the
# reaper leaves to their Popen: collecting one would steal its exit status (a Popen whose
# child was collected elsewhere reports 0). The lock also keeps the reaper out between a
# fork and the pid's entry here.
_LOCK = threading.Lock()
_STARTED: dict[int, subprocess.Popen[bytes]] = {}


def popen(argv: Sequence[str], **options: Any) -> subprocess.Popen[bytes]:
    """``subprocess.Popen(argv, **options)``, known as a child this process waits for itself:
    :func:`reap_orphans` never collects it. A verb that reaps starts every child through here."""
    with _LOCK:
        process: subprocess.Popen[bytes] = subprocess.Popen(argv, **options)
        _STARTED[process.pid] = process
    return process


def _collect(pid: int) -> int:
    try:
        return 1 if os.waitpid(pid, os.WNOHANG)[0] == pid else 0
    except ChildProcessError:
        return 0


def reap_orphans() -> int:
    """Collect every exited child of this process that it did not start itself (the orphans a
    subreaper adopts), so none is left a zombie; how many (Linux; elsewhere orphans go to init,
    which collects them).

    It looks before it collects (``waitid`` with ``WNOWAIT``); when the first exited child is
    one a ``Popen`` of this process waits for, it finds the others in ``/proc``.
    """
    if not sys.platform.startswith("linux") or not hasattr(os, "waitid"):
        return 0
    reaped = 0
    with _LOCK:
        for pid in [pid for pid, p in _STARTED.items() if p.returncode is not None]:
            del _STARTED[pid]  # waited for: a later process with its pid is not ours
        while True:
            try:
                seen = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return reaped
            if seen is None:
                return reaped
            if seen.si_pid not in _STARTED:
                reaped += _collect(seen.si_pid)
                continue
            me = os.getpid()
            for pid, (ppid, state) in table().items():
                if ppid == me and state == "Z" and pid not in _STARTED:
                    reaped += _collect(pid)
            return reaped


def _alive_below(root: int) -> list[int]:
    """The processes below ``root`` that have not exited (zombies are not)."""
    processes = table()
    return [pid for pid in descendants(root, processes) if processes[pid][1] not in "ZX"]


def end_all(grace: float = 3.0, patience: float = 10.0) -> int:
    """End every process below this one: SIGTERM, ``grace`` seconds to go, then SIGKILL until
    none is left (a process that forks while it is ended is caught on the next round; one stuck
    in the kernel is given up after ``patience`` seconds), and collect them; how many there were.

    Linux, where ``/proc`` names them and the subreaper keeps every orphan below this process.
    Elsewhere nothing: the group of a session that ended may belong to someone else by now.
    """
    me = os.getpid()
    first = _alive_below(me)
    if not first:
        reap_orphans()
        return 0
    _signal_all(first, signal.SIGTERM)
    ends = time.monotonic() + grace
    while time.monotonic() < ends and _alive_below(me):
        reap_orphans()
        time.sleep(0.05)
    ends = time.monotonic() + patience
    while True:
        left = _alive_below(me)
        if not left or time.monotonic() >= ends:
            break
        _signal_all(left, signal.SIGKILL)
        reap_orphans()
        time.sleep(0.02)
    reap_orphans()
    return len(first)


class Subreaper:
    """A run's hold on every process it starts (Linux), as a context.

    Entering makes this process the subreaper of its descendants and starts a thread that
    collects adopted orphans as they exit (every ``interval`` seconds), so a test that forks
    cannot fill the process table with zombies. Leaving ends every descendant still alive,
    whichever of the run's pytest processes started it (:func:`end_all`; ``ended`` says how
    many), and collects them. Every child started while it holds goes through :func:`popen`.
    """

    def __init__(self, interval: float = 0.05) -> None:
        self.interval = interval
        self.active = False
        self.ended = 0
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None

    def __enter__(self) -> Subreaper:
        self.active = become_subreaper()
        if self.active:
            self._thread = threading.Thread(target=self._reap, name="truegreen-reaper", daemon=True)
            self._thread.start()
        return self

    def _reap(self) -> None:
        while not self._stop.wait(self.interval):
            reap_orphans()

    def __exit__(
        self,
        kind: Optional[type[BaseException]],
        value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        try:
            if self.active:
                self.ended = end_all()
        finally:
            self._stop.set()
            if self._thread is not None:
                self._thread.join()


class Stopped(Exception):
    """The verb is stopping: no new pytest run starts."""


class InFlight:
    """The pytest runs a verb has going at once, ended together when it is stopped (by a
    signal): :meth:`stop` ends each one's whole tree, and refuses every run that starts after."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: list[Child] = []
        self.stopped = False

    @contextlib.contextmanager
    def holding(self, child: Child) -> Iterator[None]:
        """While the run ``child`` lasts; a run started after :meth:`stop` is ended at once
        and raises :class:`Stopped`."""
        with self._lock:
            if not self.stopped:
                self._live.append(child)
        if self.stopped:
            end_tree(child, everything=False, grace=1.0)
            raise Stopped
        try:
            yield
        finally:
            with self._lock:
                if child in self._live:
                    self._live.remove(child)

    def stop(self, grace: float = 1.0) -> None:
        with self._lock:
            self.stopped = True
            live = list(self._live)
        end_trees(live, grace=grace)


def wait_until(child: Child, deadline: Optional[float], *, everything: bool) -> tuple[int, bool]:
    """Wait for ``child`` until ``deadline`` (epoch seconds, or None), then end its tree;
    (exit status, timed out)."""
    timeout = None if deadline is None else max(0.0, deadline - time.time())
    try:
        return child.wait(timeout), False
    except subprocess.TimeoutExpired:
        end_tree(child, everything=everything)
        return 124, True
    except BaseException:  # Ctrl-C, or a SIGTERM raised as an exception by the verb
        # The child has a session of its own, out of reach of the terminal's Ctrl-C.
        end_tree(child, everything=everything, grace=1.0)
        raise
