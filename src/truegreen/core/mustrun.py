"""The ``must-run`` matcher: which node ids a gate pattern names, for the plugin and for
``truegreen shards verify`` alike."""

from __future__ import annotations

from fnmatch import fnmatchcase


def matches(nodeid: str, pattern: str) -> bool:
    """A node id matches a pattern exactly, as an fnmatch glob, or as a file, class or
    function prefix (``tests/test_gate.py``, ``tests/test_gate.py::test_x`` for every
    parameter of ``test_x``)."""
    if nodeid == pattern or nodeid.startswith((pattern + "::", pattern + "[")):
        return True
    return fnmatchcase(nodeid, pattern)
