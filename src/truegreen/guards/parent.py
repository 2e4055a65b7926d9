"""A child that dies with the process that started it (Linux): a ``kill -9`` of
``truegreen ablate`` takes its pytest runs along instead of leaving them to run on.

The parent names itself in ``_TRUEGREEN_PARENT``; the ``sitecustomize`` shim, first thing
in the child, takes the variable out of the environment (the child's own children are not
the parent's) and asks the kernel for a ``SIGKILL`` when the parent ends
(``PR_SET_PDEATHSIG``). Builtins only at import: every such child imports this.
"""

import os
import sys

PARENT_VAR = "_TRUEGREEN_PARENT"
_PR_SET_PDEATHSIG = 1
_SIGKILL = 9
_armed: "list[bool]" = []  # [True] once this process dies with its parent


def armed() -> bool:
    """Whether this process dies with its parent (and its forks should die with it)."""
    return bool(_armed)


def die_with(parent: int) -> bool:
    """``SIGKILL`` this process when the thread that started it ends, and at once when
    ``parent`` (its parent's pid) is already gone; False where the kernel cannot (not Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    if os.getppid() != parent:  # it ended before the request: nobody would send the signal
        os.kill(os.getpid(), _SIGKILL)
    _armed[:] = [True]
    return True


def from_environment() -> bool:
    """:func:`die_with` the parent named in ``_TRUEGREEN_PARENT``, taken out of the environment."""
    parent = os.environ.pop(PARENT_VAR, "")
    return parent.isdigit() and die_with(int(parent))
