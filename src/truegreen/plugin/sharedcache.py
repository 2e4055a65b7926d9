"""One file's session among several writing one ``.pytest_cache``: merge, do not overwrite.

pytest's cache plugins read ``cache/lastfailed`` and ``cache/nodeids`` when a session starts
and write them whole when it ends. Under ``truegreen run --isolate-files`` several files'
sessions run at once over one cache, so each would write back what it read at its start with
only its own file's changes, and the last to end would drop the others' failures (``--lf``
after an isolated run would miss them). This plugin, registered in each file's session,
re-reads both entries under a lock as the session ends and applies only this session's
changes to what is there now.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from truegreen.plugin.listing import HooksOnly

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (released when the descriptor closes)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        else:
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
        yield
    finally:
        os.close(fd)


def merged_failures(
    started: dict[str, Any], mine: dict[str, Any], now: dict[str, Any]
) -> dict[str, Any]:
    """What the cache's last-failed entry becomes: ``now`` (as the other sessions left it)
    less what this session found passing, plus what it found failing."""
    passed = started.keys() - mine.keys()
    failed = {nodeid: value for nodeid, value in mine.items() if started.get(nodeid) != value}
    kept = {nodeid: value for nodeid, value in now.items() if nodeid not in passed}
    return {**kept, **failed}


class SharedCache(HooksOnly):
    """Registered in a file's session of an isolated run when the cache plugin is on."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.started: dict[str, Any] = {}

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self) -> None:
        lfplugin = self.config.pluginmanager.get_plugin("lfplugin")
        if lfplugin is not None:
            self.started = dict(lfplugin.lastfailed)  # before collection changes it

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_sessionfinish(self) -> Generator[None, None, None]:
        cache = self.config.cache
        if cache is None:
            return (yield)
        with _locked(cache.mkdir("truegreen") / "lock"):
            lfplugin = self.config.pluginmanager.get_plugin("lfplugin")
            if lfplugin is not None:
                now = cache.get("cache/lastfailed", {})
                merged = merged_failures(self.started, dict(lfplugin.lastfailed), now)
                lfplugin.lastfailed = merged
            nfplugin = self.config.pluginmanager.get_plugin("nfplugin")
            if nfplugin is not None and nfplugin.cached_nodeids is not None:
                nfplugin.cached_nodeids.update(cache.get("cache/nodeids", []))
            # pytest's cache plugins write both entries inside: still under the lock
            return (yield)
