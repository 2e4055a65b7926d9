"""pytest's naming options as pytest reads them: which files, classes and functions are tests,
which directories it never walks into, where it looks when given no paths. No pytest here."""

from __future__ import annotations

import fnmatch
import functools
import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

# pytest's defaults for its ini options of the same names.
PYTHON_FILES = ("test_*.py", "*_test.py")
PYTHON_CLASSES = ("Test",)
PYTHON_FUNCTIONS = ("test",)
NORECURSEDIRS = ("*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}")


def args(value: Any) -> tuple[str, ...]:
    """An ini option of pytest's ``args`` type: a TOML list as it is, an ini string split into
    shell words (several patterns on one line, or one per line)."""
    if value is None:
        return ()
    if isinstance(value, (list, tuple)):
        return tuple(str(item) for item in value)
    try:
        return tuple(shlex.split(str(value)))
    except ValueError:
        return tuple(str(value).split())


def fnmatch_ex(pattern: str, path: PurePath) -> bool:
    """pytest's ``fnmatch_ex``: a pattern without a ``/`` matches the name; one with a ``/``
    matches the end of an absolute path (the whole of a relative one)."""
    if "/" not in pattern:
        return fnmatch.fnmatch(path.name, pattern)
    if path.is_absolute() and not os.path.isabs(pattern):
        pattern = f"*/{pattern}"
    return fnmatch.fnmatch(path.as_posix(), pattern)


@functools.lru_cache(maxsize=4096)  # asked of the same few names all through a run
def _prefix_or_glob(name: str, options: tuple[str, ...]) -> bool:
    """pytest's ``_matches_prefix_or_glob_option``: a prefix, or a glob if it has one."""
    return any(
        name.startswith(option)
        or (any(c in option for c in "*?[") and fnmatch.fnmatch(name, option))
        for option in options
    )


@dataclass(frozen=True)
class Naming:
    """The options that decide what pytest collects, each with pytest's default."""

    files: tuple[str, ...] = PYTHON_FILES
    classes: tuple[str, ...] = PYTHON_CLASSES
    functions: tuple[str, ...] = PYTHON_FUNCTIONS
    norecursedirs: tuple[str, ...] = NORECURSEDIRS
    testpaths: tuple[str, ...] = ()
    pythonpath: tuple[str, ...] = ()
    doctest_modules: bool = False  # --doctest-modules in addopts: every module is imported

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Naming:
        def given(key: str, default: tuple[str, ...]) -> tuple[str, ...]:
            return args(options[key]) if key in options else default

        return cls(
            files=given("python_files", PYTHON_FILES),
            classes=given("python_classes", PYTHON_CLASSES),
            functions=given("python_functions", PYTHON_FUNCTIONS),
            norecursedirs=given("norecursedirs", NORECURSEDIRS),
            testpaths=given("testpaths", ()),
            pythonpath=given("pythonpath", ()),
            doctest_modules="--doctest-modules" in args(options.get("addopts")),
        )

    def test_file(self, path: PurePath) -> bool:
        """Whether pytest collects a ``.py`` file it walks into as a test module."""
        return any(fnmatch_ex(pattern, path) for pattern in self.files)

    def test_class(self, name: str) -> bool:
        return _prefix_or_glob(name, self.classes)

    def test_function(self, name: str) -> bool:
        return _prefix_or_glob(name, self.functions)

    def norecurse(self, directory: PurePath) -> bool:
        """Whether pytest stops at a directory it walks into (one named on its command line
        is walked whatever its name)."""
        return any(fnmatch_ex(pattern, directory) for pattern in self.norecursedirs)

    def describe(self) -> str:
        """The options as a user would write them, for a message."""
        return f"python_files {' '.join(self.files)}"
