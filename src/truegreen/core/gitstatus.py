"""git status as data: parse ``--porcelain=v1 -z`` output and diff two snapshots of a tree."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple, Union

from truegreen.core.paths import is_tool_cache

# A status code names what happened to a path; the worse half of "XY" decides the word.
_WORDS = (
    ("U", "unmerged"),
    ("D", "deleted"),
    ("R", "renamed"),
    ("C", "copied"),
    ("A", "new file"),
    ("T", "type changed"),
)


class Snapshot(NamedTuple):
    """The dirty part of a working tree at one moment.

    ``status`` maps every path git lists (relative to the top of the checkout, '/'-separated)
    to its two-letter code; ``fingerprints`` maps those paths to whatever the caller measured
    of their content, so a file that was dirty before and changed further is still seen.
    """

    status: Mapping[str, str]
    fingerprints: Mapping[str, str] = {}  # never changed in place: a record, read only


class Change(NamedTuple):
    """One difference between two snapshots, ordered by path."""

    path: str
    what: str

    def __str__(self) -> str:
        return f"{self.what}: {self.path}"


def parse_status(output: Union[bytes, str]) -> dict[str, str]:
    """Map each path of ``git status --porcelain=v1 -z`` output to its status code.

    A rename or copy (``R  new\\0old\\0``) is listed under its new path; the old path is
    gone from the tree and git lists it again only if something recreates it. Bytes that
    are not UTF-8 survive as surrogate escapes, as ``os.fsdecode`` would make them.
    """
    text = output.decode("utf-8", "surrogateescape") if isinstance(output, bytes) else output
    fields = text.split("\0")
    if fields[-1] == "":
        fields.pop()  # every record ends in NUL, so the last split is empty
    status: dict[str, str] = {}
    index = 0
    while index < len(fields):
        record = fields[index]
        if len(record) < 4 or record[2] != " ":
            raise ValueError(f"expected a porcelain record 'XY path', found {record!r}")
        code, path = record[:2], record[3:]
        index += 1
        if "R" in code or "C" in code:
            if index >= len(fields):
                raise ValueError(f"expected the original path after {record!r}, found the end")
            index += 1
        status[path] = code
    return status


def excluded(path: str, prefixes: Sequence[str] = ()) -> bool:
    """Whether ``path`` is a tool cache (anywhere in it) or lies under one of ``prefixes``."""
    if any(is_tool_cache(part) for part in path.rstrip("/").split("/")):
        return True
    bare = path.rstrip("/")
    return any(bare == p.rstrip("/") or bare.startswith(p.rstrip("/") + "/") for p in prefixes)


def _word(code: str) -> str:
    if code == "??":
        return "untracked"
    if code == "!!":
        return "ignored"
    for letter, word in _WORDS:
        if letter in code:
            return word
    return "modified"


def _appeared(code: str) -> str:
    word = _word(code)
    return "new untracked file" if word == "untracked" else word


def diff_snapshots(before: Snapshot, after: Snapshot) -> list[Change]:
    """Every path whose status or fingerprint differs between ``before`` and ``after``."""
    changes = []
    for path in before.status.keys() | after.status.keys():
        old, new = before.status.get(path), after.status.get(path)
        if old is None and new is not None:
            changes.append(Change(path, _appeared(new)))
        elif new is None and old is not None:
            changes.append(Change(path, f"no longer {_word(old)}"))
        elif old != new:
            changes.append(Change(path, f"{_word(str(new))} (git status was {old!r}, now {new!r})"))
        elif before.fingerprints.get(path) != after.fingerprints.get(path):
            changes.append(Change(path, f"changed further (already {_word(str(old))} before)"))
    return sorted(changes)
