"""``truegreen platforms``: the test files an OS lane must import, read without importing them."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from truegreen.cli import add_verb
from truegreen.core import config as tgconfig
from truegreen.core import formats
from truegreen.core.errors import UsageError
from truegreen.core.files import unreadable, walked
from truegreen.core.lanes import read_markers
from truegreen.core.platforms import OSES, checked_arch

EXAMPLE = """\
  # files a Windows lane must import
  truegreen platforms --os windows
  truegreen platforms --os macos --arch arm64 tests/ --format json
  pytest $(truegreen platforms --os linux --all)    # the lane's own run
"""
_SKIP_DIRS = {
    ".git",
    ".hg",
    ".tox",
    ".nox",
    ".venv",
    "venv",
    "node_modules",
    "__pycache__",
    "build",
    "dist",
    "site-packages",
}


def add_parser(verbs: Any) -> None:
    parser = add_verb(
        verbs,
        "platforms",
        summary="list the test files an OS lane must import",
        description="List the test files whose platforms(...) markers reach an OS (and "
        "architecture), decided statically from the source: posix reaches macos and linux, "
        "'not linux' reaches windows and macos. A file whose marker cannot be read is listed, "
        "so the lane sees its collection error. --all adds unmarked files.",
        example=EXAMPLE,
    )
    parser.add_argument("paths", nargs="*", metavar="PATHS", help="files or directories")
    parser.add_argument("--os", required=True, choices=OSES, dest="os_name")
    parser.add_argument("--arch", default=None, help="x86_64, arm64, ... (aliases accepted)")
    parser.add_argument("--all", action="store_true", help="also list unmarked test files")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(run=run)


def _is_test_file(name: str) -> bool:
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def test_files(paths: list[Path]) -> Iterator[Path]:
    """Test files under ``paths`` (``test_*.py``, ``*_test.py``), sorted, no virtualenvs."""
    for path in paths:
        why = unreadable(path)
        if why is not None:
            raise UsageError(
                f"truegreen platforms: expected a readable file or directory, found {path} ({why})"
            )
        if path.is_file():
            yield path
            continue
        for directory, dirs, files in os.walk(path):
            dirs[:] = sorted(
                d
                for d in dirs
                if d not in _SKIP_DIRS and not d.startswith(".") and not d.endswith(".egg-info")
            )
            for name in sorted(files):
                if _is_test_file(name) and walked(Path(directory) / name):
                    yield Path(directory) / name


def default_paths(cwd: Path) -> list[Path]:
    """pytest's ``testpaths`` from the project's pyproject.toml, or the working directory."""
    project = cwd / "pyproject.toml"
    if project.is_file():
        ini = tgconfig.read_toml(project).get("tool", {}).get("pytest", {}).get("ini_options", {})
        found = [cwd / p for p in ini.get("testpaths", []) if (cwd / p).exists()]
        if found:
            return found
    return [cwd]


def run(args: argparse.Namespace) -> int:
    if args.arch is not None:
        checked_arch(args.arch)  # a misspelt --arch would reach no arch-marked test
    cwd = Path.cwd()
    paths = [Path(p) for p in args.paths] or default_paths(cwd)
    files: list[str] = []
    problems: list[str] = []
    for path in test_files(paths):
        shown = (os.path.relpath(path, cwd) if path.is_absolute() else str(path)).replace(
            os.sep, "/"
        )
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            why = unreadable(path, exc)
            if path.exists():  # listed: the lane's pytest reports it as a collection error
                files.append(shown)
                problems.append(f"{shown}: cannot be read ({why}); listed")
            else:  # a dangling link, which pytest's own walk passes over too
                problems.append(f"{shown}: cannot be read ({why}); skipped")
            continue
        markers = read_markers(text, shown)
        problems.extend(markers.problems)
        if markers.reaches(args.os_name, args.arch, unmarked=args.all):
            files.append(shown)
    for problem in problems:
        sys.stderr.write(f"truegreen platforms: {problem}\n")
    if args.format == "json":
        document = {
            "format": formats.PLATFORMS,
            "os": args.os_name,
            "arch": args.arch,
            "files": files,
        }
        print(json.dumps(document, indent=2))
    else:
        for name in files:
            print(name)
    return 0
