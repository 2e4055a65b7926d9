"""The one audit hook (PEP 578): a set lookup when nothing listens, never re-entered.

A hook cannot be removed, so truegreen installs exactly one per process and swaps
listeners in and out of ``_LISTENERS``. A listener runs with the hook muted on its
thread, so the audited calls it makes itself (``sys._getframe``, ``os.readlink``) do
not come back to it; truegreen's own I/O runs under :func:`quiet` for the same reason.
This module is imported by every guarded child process: only builtin modules here.
"""

from __future__ import annotations

import sys
from _thread import _local

TYPE_CHECKING = False  # typing itself is too dear for a child's start-up
if TYPE_CHECKING:
    from typing import Any, Callable

    Listener = Callable[[tuple[Any, ...]], None]

_LISTENERS: dict[str, Listener] = {}
# The events anyone listens to: a set membership test is the whole cost of every other event
# (most of the 40 or so a test raises: object.__getattr__, builtins.id, os.putenv, ...).
_WANTED: frozenset[str] = frozenset()
_state = _local()
_MARK = "_truegreen_audit_hook"


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event not in _WANTED or getattr(_state, "muted", False):
        return
    listener = _LISTENERS.get(event)  # another thread may have cleared it since
    if listener is None:
        return
    _state.muted = True
    try:
        listener(args)
    except OSError as refusal:
        if not getattr(refusal, "refused_by_truegreen", False):
            raise
        # The traceback ends at the call the guard refused, in the test's code: the guard's
        # own frames, where the refusal was decided, tell the reader nothing. pytest hides
        # this frame, the one left.
        __tracebackhide__ = True
        raise refusal.with_traceback(None) from None
    finally:
        _state.muted = False


def install() -> None:
    """Add the hook to this process, once (a second copy of this module reuses the first)."""
    if getattr(sys, _MARK, None) is None:
        sys.addaudithook(_hook)
        setattr(sys, _MARK, _hook)


def listen(listeners: dict[str, Listener]) -> None:
    """Route these events to these listeners (replacing any earlier listener of each)."""
    global _WANTED
    _LISTENERS.update(listeners)
    _WANTED = frozenset(_LISTENERS)


def clear() -> None:
    """Stop listening to everything; the hook stays, as a set lookup."""
    global _WANTED
    _WANTED = frozenset()
    _LISTENERS.clear()


class quiet:
    """Run truegreen's own I/O without the guards seeing it."""

    def __enter__(self) -> None:
        self._previous = getattr(_state, "muted", False)
        _state.muted = True

    def __exit__(self, *exc: object) -> None:
        _state.muted = self._previous


def muted() -> bool:
    """Whether truegreen's own code is running on this thread (a listener, or under
    :func:`quiet`): what it reads is not the test's doing."""
    return getattr(_state, "muted", False)
