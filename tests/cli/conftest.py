"""Shared by the tests of the verbs that must leave no process behind."""

from __future__ import annotations

import os
import signal
import uuid
from collections.abc import Iterator

import pytest


def marked(marker: str) -> list[int]:
    """The live processes whose command line holds ``marker`` (zombies are not alive)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                argv = handle.read()
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in argv and state not in "ZX":
            found.append(int(entry))
    return found


@pytest.fixture
def marker() -> Iterator[str]:
    """A word no process but this test's carries in its argv (the test file's name, the
    project's folder); whatever carries it is ended after the test, whatever the test
    asserted (only those: never another's process)."""
    word = f"tg-marked-{uuid.uuid4().hex}"
    yield word
    for pid in marked(word):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            continue
