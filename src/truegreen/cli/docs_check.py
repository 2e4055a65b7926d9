"""``truegreen docs-check``: relative links and anchors in Markdown that lead nowhere."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

from truegreen.cli import Status, add_verb
from truegreen.core import formats
from truegreen.core.docslinks import check_pages
from truegreen.core.errors import UsageError
from truegreen.core.files import unreadable, walked

EXAMPLE = """\
  # every *.md under the working directory
  truegreen docs-check
  truegreen docs-check README.md docs/
  truegreen docs-check --format json
"""

# Directories that hold someone else's Markdown, or none worth reading.
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "node_modules", "build", "dist",
     "site-packages", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache",
     ".hypothesis", "htmlcov", "_build"}
)  # fmt: skip
MARKDOWN = (".md", ".markdown")


def add_parser(verbs: Any) -> None:
    parser = add_verb(
        verbs,
        "docs-check",
        summary="find relative links and anchors in Markdown that lead nowhere",
        description="Check every relative link in Markdown files: the file it names must "
        "exist, and an anchor (#section) must match a heading of the target page by GitHub's "
        "slug rules (repeats numbered -1, -2) or an explicit <a name=...>/id=... anchor. "
        "In-page anchors, images, reference definitions and HTML href/src count; code spans "
        "and fenced blocks do not. External links (https:, mailto:, ...) are never fetched. "
        "Paths starting with / are relative to the working directory, as on GitHub. Exit 1 "
        "when a link is broken.",
        example=EXAMPLE,
    )
    parser.add_argument(
        "paths", nargs="*", metavar="PATHS", help="Markdown files or directories (default: .)"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(run=run)


def markdown_files(paths: list[Path]) -> Iterator[Path]:
    """Markdown files under ``paths``, sorted; virtualenvs, VCS and build directories skipped."""
    for path in paths:
        why = unreadable(path)
        if why is not None:
            raise UsageError(
                f"docs-check: expected a readable Markdown file or a directory, found "
                f"{str(path)!r} ({why}); PATHS default to the working directory"
            )
        if path.is_file():
            if not path.name.lower().endswith(MARKDOWN):
                raise UsageError(
                    "docs-check: expected a Markdown file (.md) or a directory, "
                    f"found {str(path)!r}"
                )
            yield path
            continue
        for directory, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not _skipped(Path(directory) / d))
            for name in sorted(files):
                if name.lower().endswith(MARKDOWN) and walked(Path(directory) / name):
                    yield Path(directory) / name


def _skipped(directory: Path) -> bool:
    name = directory.name
    return name in SKIP_DIRS or name.endswith(".egg-info") or (directory / "pyvenv.cfg").is_file()


def _page(path: Path, root: Path) -> str:
    """A Markdown page's text; a page found while walking that cannot be read (a dangling
    link, no permission) is one usage line: its links cannot be checked."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        shown = Path(os.path.relpath(path, root)).as_posix()
        raise UsageError(
            f"docs-check: expected a readable Markdown file, found {shown!r} "
            f"({unreadable(path, exc)})"
        ) from None


def run(args: argparse.Namespace) -> int:
    root = Path.cwd()
    pages: dict[str, str] = {}
    for path in markdown_files([Path(p) for p in args.paths] or [root]):
        shown = Path(os.path.relpath(path.resolve(), root)).as_posix()
        pages[shown] = _page(path, root)

    def exists(target: str) -> bool:
        return (root / target).exists()

    def read(target: str) -> Optional[str]:
        try:
            return (root / target).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    broken = check_pages(pages, exists, read)
    if args.format == "json":
        document = {
            "format": formats.DOCS_CHECK,
            "files": len(pages),
            "broken": [
                {"path": b.path, "line": b.line, "target": b.target, "problem": b.problem}
                for b in broken
            ],
        }
        print(json.dumps(document, indent=2))
    else:
        for item in broken:
            print(item)
        if broken:
            print(f"docs-check: {len(broken)} broken links in {len(pages)} Markdown files")
        else:
            print(f"docs-check: every relative link resolves in {len(pages)} Markdown files")
    return Status.FINDINGS if broken else Status.CLEAN
