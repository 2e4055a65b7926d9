"""The ``must-run`` matcher: which node ids a gate pattern names, for the plugin and for
``truegreen shards verify`` alike."""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase


def matches(nodeid: str, pattern: str) -> bool:
    """A node id matches a pattern exactly, as an fnmatch glob, or as a file, class or
    function prefix (``tests/test_gate.py``, ``tests/test_gate.py::test_x`` for every
    parameter of ``test_x``)."""
    if nodeid == pattern or nodeid.startswith((pattern + "::", pattern + "[")):
        return True
    return fnmatchcase(nodeid, pattern)


def covers(args: Sequence[str], pattern: str) -> bool:
    """Whether a selection of these arguments could hold a test the pattern names.

    Each argument is a path or node id relative to the root directory, with ``/`` between
    directories, a directory ending in ``/`` (``""`` or ``"/"``: the root itself). A literal
    pattern is covered when it and an argument overlap: one is the other or lies under it
    (``tests/`` covers ``tests/test_gate.py::test_x``, and ``tests/test_gate.py::test_x``
    covers the pattern ``tests/test_gate.py``). A glob is covered by an argument it matches,
    one its fixed beginning (up to the first ``*`` or ``?``) lies under, and a directory a
    path beginning that way could lie in: ``tests/*gate*`` is covered by ``tests/`` and not
    by ``tests/test_ok.py``; ``*::test_gate`` by any directory and by no file.
    """
    cut = [i for i in (pattern.find("*"), pattern.find("?")) if i >= 0]
    fixed = pattern[: min(cut)] if cut else pattern
    for arg in args:
        directory = arg.endswith("/") or not arg
        arg = arg.rstrip("/")
        if not arg or matches(arg, pattern):
            return True
        if _under(fixed, arg):
            return True
        if cut and directory and (arg + "/").startswith(fixed):
            return True
    return False


def _under(inner: str, outer: str) -> bool:
    """Whether node id or path ``inner`` is ``outer`` or lies under it."""
    return inner == outer or inner.startswith((outer + "/", outer + "::", outer + "["))
