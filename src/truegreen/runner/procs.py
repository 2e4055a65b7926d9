"""Process trees: start pytest sealed, find every descendant, end them all at a deadline.

A child that calls ``setsid`` leaves the process group, and one whose parent died is
reparented away from it; on Linux truegreen makes itself a *child subreaper*, so orphans
come back to it and stay findable, and it finds descendants through ``/proc``
(:func:`truegreen.guards.procfs.descendants`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Optional, Protocol

from truegreen.core.config import ENV_PREFIX
from truegreen.core.protocol import REAL_HOME_VAR
from truegreen.guards.mutant import MUTANT_VAR
from truegreen.guards.procfs import descendants

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

    if process.pid <= 0:
        return  # never signal our own process group (pid 0) or everything (-1)

    def tree() -> list[int]:
        mine = descendants(os.getpid()) if everything else []
        return sorted({process.pid, *descendants(process.pid), *mine})

    first = tree()
    with contextlib.suppress(OSError):
        os.killpg(process.pid, signal.SIGTERM)
    _signal_all(first, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    last = sorted({*first, *tree()})
    with contextlib.suppress(OSError):
        os.killpg(process.pid, signal.SIGKILL)
    _signal_all(last, signal.SIGKILL)
    process.wait()
    _wait_gone(last, reap=everything)


def _alive(pid: int) -> bool:
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
        if not any(_alive(pid) for pid in pids) or time.monotonic() >= deadline:
            return
        time.sleep(0.02)


def reap_orphans() -> None:
    """Collect orphans the subreaper inherited, so none is left a zombie."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def wait_until(child: Child, deadline: Optional[float], *, everything: bool) -> tuple[int, bool]:
    """Wait for ``child`` until ``deadline`` (epoch seconds, or None), then end its tree;
    (exit status, timed out)."""
    timeout = None if deadline is None else max(0.0, deadline - time.time())
    try:
        return child.wait(timeout), False
    except subprocess.TimeoutExpired:
        end_tree(child, everything=everything)
        return 124, True
    except KeyboardInterrupt:
        # The child has a session of its own, out of reach of the terminal's Ctrl-C.
        end_tree(child, everything=everything, grace=1.0)
        raise
