"""The collection-path gate: which changed test files a pytest command never collects, and why.

Works on the record :mod:`truegreen.plugin.collectrecord` writes (absolute paths) and on the
list of changed files; no pytest, no git, no file reads here.
"""

from __future__ import annotations

import ast
import fnmatch
import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

DEFAULT_PYTHON_FILES = ("test_*.py", "*_test.py")
TEST_DIRS = frozenset({"tests", "test", "testing"})


@dataclass(frozen=True)
class Record:
    """One collection, as the recording plugin saw it; paths absolute and '/'-separated."""

    rootdir: str
    args: tuple[str, ...]
    args_source: str  # "args" (given on the command line), "testpaths", "invocation_dir"
    ini: Mapping[str, Sequence[str]]
    options: Mapping[str, Any]
    visited: frozenset[str] = frozenset()
    files: frozenset[str] = frozenset()
    ignored: frozenset[str] = frozenset()
    errors: Mapping[str, str] = field(default_factory=dict)
    skipped: Mapping[str, str] = field(default_factory=dict)
    collected: Mapping[str, int] = field(default_factory=dict)
    deselected: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Record:
        return cls(
            rootdir=data["rootdir"],
            args=tuple(data["args"]),
            args_source=data["args_source"],
            ini=data["ini"],
            options=data["options"],
            visited=frozenset(data["visited"]),
            files=frozenset(data["files"]),
            ignored=frozenset(data["ignored"]),
            errors=data["errors"],
            skipped=data["skipped"],
            collected=data["collected"],
            deselected=data["deselected"],
        )


@dataclass(frozen=True, order=True)
class Verdict:
    """One changed test file: how many items the command collects from it, and if none, why."""

    path: str
    collected: int
    reason: Optional[str] = None


def _matches(path: str, pattern: str) -> bool:
    """pytest's ``fnmatch_ex``: a pattern without a '/' matches the file name only; one with
    a '/' matches the end of the path."""
    if "/" not in pattern:
        return fnmatch.fnmatch(posixpath.basename(path), pattern)
    return fnmatch.fnmatch(path, pattern if posixpath.isabs(pattern) else f"*/{pattern}")


def named_as_test(path: str, python_files: Iterable[str] = ()) -> bool:
    """Whether pytest's default naming or the project's ``python_files`` makes ``path`` a test."""
    return any(_matches(path, p) for p in (*DEFAULT_PYTHON_FILES, *python_files))


def defines_tests(source: str) -> bool:
    """Whether a module defines a top-level ``test*`` function or a ``Test*`` class."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
            "test"
        ):
            return True
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            return True
    return False


def _under(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def dirs_for_tests(record: Record) -> list[str]:
    """The directories a test file may sit in without a test's name: testpaths and the args."""
    found = [posixpath.join(record.rootdir, p) for p in record.ini.get("testpaths", ())]
    return found + list(record.args)


def is_test_file(path: str, source: str, record: Record) -> bool:
    """A file pytest would treat as a test by its name (defaults or ``python_files``), or any
    module under the testpaths, the args or a ``tests`` directory that defines tests."""
    name = posixpath.basename(path)
    if not name.endswith(".py") or name in ("conftest.py", "__init__.py"):
        return False
    if named_as_test(path, record.ini.get("python_files", ())):
        return True
    parts = posixpath.dirname(path).split("/")
    in_tests = any(_under(path, d) for d in dirs_for_tests(record)) or bool(TEST_DIRS & set(parts))
    return in_tests and defines_tests(source)


def _ancestors(path: str) -> list[str]:
    """``path`` and each directory above it, nearest first."""
    found = [path]
    while True:
        parent = posixpath.dirname(path)
        if parent == path:
            return found
        found.append(parent)
        path = parent


def _show(path: str, record: Record) -> str:
    try:
        return posixpath.relpath(path, record.rootdir)
    except ValueError:
        return path


def _ignored_why(blocked: str, record: Record) -> str:
    options = record.options
    where = _show(blocked, record)
    if blocked in options.get("ignore", ()):
        return f"ignored: --ignore {where}"
    if any(fnmatch.fnmatch(blocked, g) for g in options.get("ignore_glob", ())):
        return f"ignored: --ignore-glob matches {where}"
    patterns = [p for p in record.ini.get("norecursedirs", ()) if _matches(blocked, p)]
    if patterns:
        return f"ignored: norecursedirs {patterns[0]!r} matches {where}"
    return f"ignored: {where} is excluded by collect_ignore or a pytest_ignore_collect hook"


def _deselected_why(count: int, record: Record) -> str:
    options = record.options
    how = []
    if options.get("keyword"):
        how.append(f"-k {options['keyword']!r}")
    if options.get("markexpr"):
        how.append(f"-m {options['markexpr']!r}")
    if options.get("deselect"):
        how.append("--deselect")
    means = " or ".join(how) or "a plugin's pytest_collection_modifyitems"
    return f"deselected: all {count} of its tests by {means}"


def _outside_why(record: Record) -> str:
    shown = " ".join(_show(a, record) for a in record.args) or "."
    if record.args_source == "testpaths":
        return f"outside testpaths ({shown})"
    if record.args_source == "args":
        return f"outside the paths the command names ({shown})"
    return f"outside the directory pytest was started in ({shown})"


def verdict(path: str, record: Record) -> Verdict:
    """How many items the recorded command collects from ``path``, and if none, why."""
    collected = record.collected.get(path, 0)
    if collected:
        return Verdict(path, collected)
    errors = [record.errors[p] for p in _ancestors(path) if p in record.errors]
    if errors:
        return Verdict(path, 0, f"collection error: {errors[0]}")
    if path in record.skipped:
        return Verdict(path, 0, f"skipped at collection: {record.skipped[path]}")
    if record.deselected.get(path):
        return Verdict(path, 0, _deselected_why(record.deselected[path], record))
    blocked = next((p for p in _ancestors(path) if p in record.ignored), None)
    if blocked is not None:
        return Verdict(path, 0, _ignored_why(blocked, record))
    if not any(_under(path, a) for a in record.args):
        return Verdict(path, 0, _outside_why(record))
    if path in record.visited and path not in record.files:
        patterns = " ".join(record.ini.get("python_files", ())) or " ".join(DEFAULT_PYTHON_FILES)
        return Verdict(path, 0, f"misnamed: the name does not match python_files ({patterns})")
    if path in record.files:
        functions = " ".join(record.ini.get("python_functions", ())) or "test"
        classes = " ".join(record.ini.get("python_classes", ())) or "Test"
        return Verdict(
            path,
            0,
            f"collects no tests: no function matches python_functions ({functions}) "
            f"and no class python_classes ({classes})",
        )
    return Verdict(path, 0, "never reached by the collection")


def verdicts(paths: Iterable[str], record: Record) -> list[Verdict]:
    """One verdict per changed test file, sorted by path."""
    return sorted(verdict(p, record) for p in paths)
