"""The test running now, published by the session for its child processes.

A child learns its test from ``PYTEST_CURRENT_TEST`` as it starts; a process that outlives its
test (a fork server, a helper a session fixture started) would charge everything it does later
to that test. The session writes the node id of the running test into ``current-test`` in the
run's directory at each test's start (an empty line between tests); a child reads it when it
records something, and a forked child as it is forked. The first line is the whole answer:
the file is rewritten in place, so a shorter id leaves the old tail behind its newline.
"""

from __future__ import annotations

import os

from truegreen.guards.hook import quiet

TYPE_CHECKING = False  # typing itself is too dear for a child's start-up
if TYPE_CHECKING:
    from typing import Optional, Union

CURRENT_FILE = "current-test"
UNKNOWN = "?"  # the file cannot be read: not a run that publishes (an older session)

_open, _pwrite, _read, _close = os.open, getattr(os, "pwrite", None), os.read, os.close


class Publisher:
    """The session's side: one descriptor kept open, rewritten in place for each test."""

    def __init__(self, run_dir: str) -> None:
        self.path = os.path.join(run_dir, CURRENT_FILE)
        with quiet():
            self.fd = _open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)

    def publish(self, nodeid: Optional[str]) -> None:
        # No audit event is raised by a write to a descriptor: no need to go quiet.
        data = f"{nodeid}\n".encode() if nodeid else b"\n"
        if _pwrite is not None:
            _pwrite(self.fd, data, 0)
        else:  # pragma: no cover - Windows
            os.lseek(self.fd, 0, os.SEEK_SET)
            os.write(self.fd, data)

    def close(self) -> None:
        with quiet():
            try:  # noqa: SIM105 - contextlib is one import more in every child's start-up
                _close(self.fd)
            except OSError:
                pass


def running(run_dir: str) -> Union[str, None]:
    """The node id of the test the session is running now, None between tests, or
    :data:`UNKNOWN`."""
    try:
        with quiet():
            fd = _open(os.path.join(run_dir, CURRENT_FILE), os.O_RDONLY)
            try:
                data = _read(fd, 65536)
            finally:
                _close(fd)
    except OSError:
        return UNKNOWN
    line, newline, _ = data.partition(b"\n")
    if not newline:
        return UNKNOWN
    return line.decode("utf-8", "replace") or None
