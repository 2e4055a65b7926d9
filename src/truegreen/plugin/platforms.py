"""The ``platforms`` marker at collection: skip off-host tests, reject markers that are wrong.

A wrong marker is a collection error, never a skip: a misspelt spec, an empty marker,
a spec that is not a string, or two markers on one test (a module's ``pytestmark``
stacked on the test's own). Such a test would otherwise be skipped on every host and
reported green everywhere.
"""

from __future__ import annotations

import platform
import sys
from typing import TYPE_CHECKING

import pytest

from truegreen.plugin.listing import HooksOnly

if TYPE_CHECKING:
    from truegreen.core.platforms import Marker

MARKER = "platforms"  # core/platforms.py's MARKER, without importing it at start-up


def marker_of(item: pytest.Item) -> Marker | None:
    """The one checked marker of ``item``, None when unmarked; PlatformSpecError if wrong."""
    from truegreen.core.platforms import checked_marker

    return checked_marker(list(item.iter_markers(MARKER)))


class PlatformsPlugin(HooksOnly):
    """Gates marked tests by host; turns wrong markers into collection errors.

    The marker's grammar is imported at the first marked test: most suites have none."""

    @classmethod
    def register(cls, config: pytest.Config) -> None:
        config.pluginmanager.register(cls(), "truegreen-platforms")

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        keep: list[pytest.Item] = []
        errors: list[tuple[pytest.Item, str]] = []
        host = None
        for item in items:
            # item.keywords holds the markers of the test and its parents, in a few
            # dictionary lookups; iter_markers walks the node chain for every test
            if MARKER not in item.keywords:
                keep.append(item)
                continue
            from truegreen.core.platforms import PlatformSpecError, host_from

            try:
                marker = marker_of(item)
            except PlatformSpecError as exc:
                errors.append((item, str(exc)))
                continue
            host = host or host_from(sys.platform, platform.machine())
            if marker is not None and not marker.matches(host):
                reason = f"{marker.describe()} does not match this host ({host})"
                item.add_marker(pytest.mark.skip(reason=reason))
            keep.append(item)
        if not errors:
            return
        items[:] = keep
        for item, message in errors:
            report = pytest.CollectReport(item.nodeid, "failed", f"{item.nodeid}: {message}", [])
            config.hook.pytest_collectreport(report=report)
