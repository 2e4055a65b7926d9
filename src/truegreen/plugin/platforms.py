"""The ``platforms`` marker at collection: skip off-host tests, reject markers that are wrong.

A wrong marker is a collection error, never a skip: a misspelt spec, an empty marker,
a spec that is not a string, or two markers on one test (a module's ``pytestmark``
stacked on the test's own). Such a test would otherwise be skipped on every host and
reported green everywhere (doctrine 003).
"""

from __future__ import annotations

import platform
import sys

import pytest
from _pytest.reports import CollectReport

from truegreen.core.platforms import Host, Marker, PlatformSpecError, host_from

MARKER = "platforms"


def marker_of(item: pytest.Item) -> Marker | None:
    """The one checked marker of ``item``, None when unmarked; PlatformSpecError if wrong."""
    found = list(item.iter_markers(MARKER))
    if not found:
        return None
    if len(found) > 1:
        shown = "; ".join(
            Marker.from_args(m.args, m.kwargs.get("arch")).describe() if m.args else "platforms()"
            for m in found
        )
        raise PlatformSpecError(
            f"platforms: expected one marker per test, found {len(found)} ({shown}); "
            "put every spec in one marker, e.g. platforms('linux', 'macos')"
        )
    mark = found[0]
    unknown = sorted(set(mark.kwargs) - {"arch"})
    if unknown:
        raise PlatformSpecError(f"platforms: expected only arch=..., found {unknown[0]}=...")
    return Marker.from_args(mark.args, mark.kwargs.get("arch"))


class PlatformsPlugin:
    """Gates marked tests by host; turns wrong markers into collection errors."""

    def __init__(self, host: Host) -> None:
        self.host = host

    @classmethod
    def register(cls, config: pytest.Config) -> None:
        plugin = cls(host_from(sys.platform, platform.machine()))
        config.pluginmanager.register(plugin, "truegreen-platforms")

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        keep, errors = [], []
        for item in items:
            try:
                marker = marker_of(item)
            except PlatformSpecError as exc:
                errors.append((item, str(exc)))
                continue
            if marker is not None and not marker.matches(self.host):
                reason = f"{marker.describe()} does not match this host ({self.host})"
                item.add_marker(pytest.mark.skip(reason=reason))
            keep.append(item)
        if not errors:
            return
        items[:] = keep
        for item, message in errors:
            report = CollectReport(item.nodeid, "failed", f"{item.nodeid}: {message}", [])
            config.hook.pytest_collectreport(report=report)
