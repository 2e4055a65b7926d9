"""A SIGTERM as an exception, for the verbs that start process trees: the ``with`` blocks and
``finally`` clauses on the way out end the trees and remove the temporary folders, as they
do for Ctrl-C, before the verb exits 143."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any


class Terminated(BaseException):
    """SIGTERM, raised where the main thread was: the verb is to end everything it started."""


def _terminate(signum: int, frame: Any) -> None:
    raise Terminated


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """While it holds, a SIGTERM raises :class:`Terminated` in the main thread; the handler
    that was there before comes back after. In another thread (a verb called in-process) it
    does nothing: only the main thread can take a signal's handler."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
