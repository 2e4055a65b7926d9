"""Where a run's evidence comes from: the commit it tested, the CI run and attempt, the lane.

Every shard manifest carries these fields (core/formats.py), so that ``truegreen shards
verify`` can refuse evidence from another commit or from an attempt that a re-run
superseded, and, across the lanes of a CI run (one per operating system and Python, and
those started on demand), prove that each test gated to a platform passed on a lane of
that platform. The environment and the host are handed in: nothing here asks the machine.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Callable, Optional

from truegreen.core.platforms import Marker, host_from

GITHUB_SHA = "GITHUB_SHA"
GITHUB_RUN_ID = "GITHUB_RUN_ID"
GITHUB_RUN_ATTEMPT = "GITHUB_RUN_ATTEMPT"
# The fields this module fills, in the manifest's order.
FIELDS = ("commit", "run_id", "run_attempt", "os", "arch", "python", "lane")
_SHA = re.compile(r"[0-9a-fA-F]{7,64}\Z")
ARCH_PREFIX = "arch="


def is_sha(text: str) -> bool:
    """Whether ``text`` looks like a commit id, full or abbreviated (7 to 64 hex digits)."""
    return _SHA.match(text) is not None


def head_commit(
    env: Mapping[str, str], git_head: Callable[[], Optional[str]]
) -> tuple[Optional[str], str]:
    """The commit under test and where it was read: ``GITHUB_SHA`` when set (a CI job may
    test a merge commit it made), else ``git_head()`` (``git rev-parse HEAD``, asked only
    then); ``(None, "")`` outside a checkout."""
    sha = env.get(GITHUB_SHA, "").strip()
    if sha:
        return sha.lower(), GITHUB_SHA
    found = git_head()
    return (found.strip().lower(), "git HEAD") if found and found.strip() else (None, "")


def python_tag(implementation: str, version: Sequence[int]) -> str:
    """``py3.12`` for CPython, ``pypy3.10`` for PyPy: the Python part of a lane's name."""
    name = implementation.lower()
    prefix = "py" if name == "cpython" else name
    return f"{prefix}{version[0]}.{version[1]}"


def fields(
    env: Mapping[str, str],
    commit: Optional[str],
    *,
    sys_platform: str,
    machine: str,
    implementation: str,
    version: Sequence[int],
    lane: Optional[str] = None,
) -> dict[str, Any]:
    """The manifest's provenance fields: the commit, the CI run and attempt (GitHub Actions'
    ``GITHUB_RUN_ID`` and ``GITHUB_RUN_ATTEMPT``; null elsewhere), the host as the
    ``platforms`` marker names it, the Python, and the lane (``lane`` when given, else
    ``<os>-<arch>-<python>``, e.g. ``linux-x86_64-py3.12``)."""
    host = host_from(sys_platform, machine)
    attempt = env.get(GITHUB_RUN_ATTEMPT, "").strip()
    python = f"{implementation.lower()}-{'.'.join(map(str, version[:3]))}"
    return {
        "commit": commit,
        "run_id": env.get(GITHUB_RUN_ID, "").strip() or None,
        "run_attempt": int(attempt) if attempt.isdigit() and int(attempt) >= 1 else None,
        "os": host.os,
        "arch": host.arch,
        "python": python,
        "lane": lane or f"{host.os}-{host.arch}-{python_tag(implementation, version)}",
    }


def encode_marker(marker: Marker) -> list[str]:
    """A ``platforms`` marker as the manifest keeps it: its specs, then ``arch=NAME`` for
    each architecture it narrows to."""
    return [*marker.specs, *(ARCH_PREFIX + arch for arch in marker.arch)]


def decode_marker(values: Sequence[str]) -> Marker:
    """The marker :func:`encode_marker` wrote; PlatformSpecError when it is not one."""
    specs = [v for v in values if not v.startswith(ARCH_PREFIX)]
    arches = [v[len(ARCH_PREFIX) :] for v in values if v.startswith(ARCH_PREFIX)]
    return Marker.from_args(specs, arches or None)
