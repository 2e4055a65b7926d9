"""A cheap picture of the developer's real home, to tell at the end of a run what changed.

The guards see every write Python makes; a program that is not Python (``git`` and ``gpg``
creating ``~/.gnupg`` during a commit) writes unseen. A session takes this snapshot at its
start and again at its end: the home's top-level entries with their modification times (a
directory's changes when an entry is created or removed in it), and, for each directory a
Python write was refused in, that directory's entries as they were when it was refused.

One ``scandir`` and one ``lstat`` an entry: a home of 5,000 entries costs a few milliseconds
(bench/home_snapshot.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Callable, Optional

# name -> (modification time in ns, size); None when the directory could not be read.
Entries = Optional[dict[str, tuple[int, int]]]


def entries(directory: str) -> Entries:
    """Every entry of ``directory`` with its modification time and size (not followed)."""
    found: dict[str, tuple[int, int]] = {}
    try:
        with os.scandir(directory) as scan:
            for entry in scan:
                try:
                    stat = entry.stat(follow_symlinks=False)
                except OSError:  # removed while we looked
                    continue
                found[entry.name] = (stat.st_mtime_ns, stat.st_size)
    except OSError:
        return None
    return found


def existing_folder(path: str, home: str) -> str:
    """The directory a write to ``path`` was refused in, or its nearest existing ancestor
    (a refused ``~/.config/tool/new/x`` makes nothing: ``~/.config/tool`` is what to watch),
    never above ``home``."""
    folder = os.path.dirname(path)
    while folder != home and len(folder) > len(home) and not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    return folder


class HomeSnapshot:
    """The top level of the home and each watched directory, as first seen."""

    def __init__(self, home: str) -> None:
        self.home = home
        self.folders: dict[str, Entries] = {home: entries(home)}

    def watch(self, folder: str) -> None:
        """Add a directory, as it is now (the first look at it wins)."""
        if folder not in self.folders:
            self.folders[folder] = entries(folder)

    def add(self, folder: str, seen: Entries) -> None:
        """Add a directory as another process saw it (an xdist worker)."""
        self.folders.setdefault(folder, seen)

    def as_data(self) -> list[list[object]]:
        """Plain lists, for a report xdist ships to its controller."""
        return [
            [folder, None if seen is None else [[n, *v] for n, v in sorted(seen.items())]]
            for folder, seen in self.folders.items()
        ]

    def merge(self, data: Iterable[list[object]]) -> None:
        for folder, seen in data:
            if isinstance(folder, str):
                rows = seen if isinstance(seen, list) else None
                self.add(folder, None if rows is None else {r[0]: (r[1], r[2]) for r in rows})

    def changes(self, ignore: Callable[[str], bool] = lambda _: False) -> list[tuple[str, str]]:
        """``(what, path)`` for each entry new, removed or changed since the snapshot, in
        path order; ``ignore(path)`` drops the ones the run may change."""
        found: dict[str, str] = {}
        for folder, before in self.folders.items():
            if before is None:
                continue
            after = entries(folder) or {}
            for what, names in compare(before, after).items():
                for name in names:
                    path = os.path.join(folder, name)
                    if not ignore(path):
                        found.setdefault(path, what)
        return sorted(((what, path) for path, what in found.items()), key=lambda c: c[1])


def compare(
    before: Mapping[str, tuple[int, int]], after: Mapping[str, tuple[int, int]]
) -> dict[str, list[str]]:
    """The names ``new``, ``removed`` and ``changed`` between two listings."""
    result: dict[str, list[str]] = {"new": [], "removed": [], "changed": []}
    for name, seen in after.items():
        old = before.get(name)
        if old is None:
            result["new"].append(name)
        elif old != seen:
            result["changed"].append(name)
    result["removed"] = [name for name in before if name not in after]
    return result
