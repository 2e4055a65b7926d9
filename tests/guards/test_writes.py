"""The write guard's resolver: real paths remembered, forgotten where a change reaches; the
file a sqlite connect may write."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from truegreen.guards.writes import Resolver, sqlite_file


def real(path: Path) -> str:
    return os.path.realpath(path)


def test_it_resolves_a_write_through_a_symlinked_directory(tmp_path: Path) -> None:
    (tmp_path / "target").mkdir()
    os.symlink(tmp_path / "target", tmp_path / "link")
    resolver = Resolver()

    actual = resolver(tmp_path / "link" / "new" / "deeper" / "file.txt")

    assert actual == real(tmp_path / "target" / "new" / "deeper" / "file.txt")


def test_it_sees_a_directory_replaced_by_a_symlink_once_told(tmp_path: Path) -> None:
    swapped, other = tmp_path / "swapped", tmp_path / "other"
    swapped.mkdir()
    other.mkdir()
    resolver = Resolver()
    assert resolver(swapped / "a.lock") == real(swapped / "a.lock")
    swapped.rmdir()
    os.symlink(other, swapped)

    resolver.forget(swapped)

    assert resolver(swapped / "a.lock") == real(other / "a.lock")


def test_any_change_forgets_directories_reached_through_a_symlink(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    os.symlink(first, tmp_path / "link")
    resolver = Resolver()
    assert resolver(tmp_path / "link" / "f") == real(first / "f")
    os.remove(tmp_path / "link")
    os.symlink(second, tmp_path / "link")

    resolver.forget(tmp_path / "elsewhere")

    assert resolver(tmp_path / "link" / "f") == real(second / "f")


def test_a_change_elsewhere_keeps_the_directories_it_cannot_reach(tmp_path: Path) -> None:
    """pytest replaces a symlink next to every new tmp_path; that must not cost a walk.

    Ablation: replace `f == real or f.startswith(below)` with `True` in
    `src/truegreen/guards/writes.py`."""
    kept, other = tmp_path / "kept", tmp_path / "other"
    kept.mkdir()
    other.mkdir()
    (tmp_path / "sibling").mkdir()
    resolver = Resolver()
    assert resolver(kept / "f") == real(kept / "f")
    assert resolver(tmp_path / "sibling" / "f") == real(tmp_path / "sibling" / "f")
    kept.rmdir()
    os.symlink(other, kept)  # behind the resolver's back: only what it remembers answers

    resolver.forget(tmp_path / "sibling")

    assert resolver(kept / "f") == real(tmp_path) + os.sep + os.path.join("kept", "f")
    resolver.forget(kept)  # premise: told about this one, it resolves it again
    assert resolver(kept / "f") == real(other / "f")


@pytest.mark.parametrize(
    ("database", "expected"),
    [
        ("/home/dev/app.db", "/home/dev/app.db"),
        ("relative.db", "relative.db"),
        (b"/home/dev/bytes.db", "/home/dev/bytes.db"),
        ("file:/home/dev/app.db", "/home/dev/app.db"),
        ("file:///home/dev/app.db?cache=shared", "/home/dev/app.db"),
        ("file://localhost/home/dev/my%20app.db", "/home/dev/my app.db"),
        ("file:/home/dev/app.db?mode=rw", "/home/dev/app.db"),
        ("file:/home/dev/app.db?mode=rwc", "/home/dev/app.db"),
        (":memory:", None),
        ("", None),
        ("file::memory:", None),
        ("file::memory:?cache=shared", None),
        ("file:shared?mode=memory&cache=shared", None),
        ("file:/home/dev/app.db?mode=ro", None),
        ("file:/home/dev/app.db?immutable=1", None),
    ],
)
def test_the_file_a_sqlite_connect_may_write(database: object, expected: object) -> None:
    assert sqlite_file(database) == expected


def test_a_sqlite_path_object_names_its_file(tmp_path: Path) -> None:
    assert sqlite_file(tmp_path / "a.db") == str(tmp_path / "a.db")
