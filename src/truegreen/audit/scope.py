"""Which of the walked files an audit reads: what pytest would collect, the conftest files it
loads, the project's own modules, and every file those import; the rest is skipped.

pytest never imports a ``.py`` file it does not collect and nothing imports (invalid Python
kept as test data, a script, a documentation example), so the audit has nothing to say about
it: a syntax error there breaks no test run.
"""

from __future__ import annotations

import glob
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from truegreen.audit.base import Project
from truegreen.audit.naming import Naming

SHOWN = 3  # skipped paths named in the report's line


@dataclass(frozen=True)
class Scope:
    """The files to audit and the walked files skipped, each list sorted."""

    files: tuple[Path, ...]
    skipped: tuple[Path, ...]
    reasons: tuple[str, ...] = ()  # why the skipped ones are skipped, as a user would read it


def collection_args(project: Project, paths: Sequence[Path]) -> list[Path]:
    """Where pytest starts collecting: the paths given, else ``testpaths`` (globs, relative
    to the root, as pytest expands them when run from its rootdir), else the root."""
    if paths:
        return [p.resolve() for p in paths]
    found: list[Path] = []
    for pattern in project.naming.testpaths:
        matches = sorted(glob.glob(str(project.root / pattern), recursive=True))
        found.extend(Path(p).resolve() for p in matches)
    return found or [project.root]


def _reached(naming: Naming, file: Path, args: Sequence[Path]) -> Optional[Path]:
    """The argument pytest would reach ``file``'s directory from, walking down without
    entering a ``norecursedirs`` directory; None when it never gets there."""
    for arg in args:
        if file == arg:
            return arg
        if arg not in file.parents:
            continue
        below = file.parent
        blocked = False
        while below != arg:
            if naming.norecurse(below):
                blocked = True
                break
            below = below.parent
        if not blocked:
            return arg
    return None


def package_module(project: Project, path: Path) -> bool:
    """Whether ``path`` is a module of the project's own packages: under a source root, in
    one of its packages, reached through directories that are packages (``__init__.py``),
    so that an import can name it. A data directory inside a package is not one."""
    for root in project.source_roots:
        try:
            parts = path.relative_to(root).parts
        except ValueError:
            continue
        top = parts[0][:-3] if len(parts) == 1 and parts[0].endswith(".py") else parts[0]
        if top not in project.packages:
            continue
        return all((root.joinpath(*parts[:n]) / "__init__.py").is_file()
                   for n in range(1, len(parts)))  # fmt: skip
    return False


def _basedir(path: Path) -> Path:
    """The directory pytest's default import mode puts on ``sys.path`` for a test module:
    the first one up that is not a package."""
    directory = path.parent
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        directory = directory.parent
    return directory


def _inits(path: Path) -> Iterator[Path]:
    """The ``__init__.py`` of each package ``path`` sits in, innermost first."""
    directory = path.parent
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        yield directory / "__init__.py"
        directory = directory.parent


# Import statements read from the text, not the tree: a parse of every audited file would
# cost a third of the audit again. A match inside a string only makes the audit read more.
_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]*(\([^)]*\)|[^\n#;]*)"
    r"|import[ \t]+([^\n#;]*))",
    re.MULTILINE,
)
_PLUGINS = re.compile(r"^pytest_plugins\s*=\s*(\[[^\]]*\]|\([^)]*\)|[^\n]*)", re.MULTILINE)
_STRING = re.compile(r"[\"']([\w.]+)[\"']")


def _names(listed: str) -> Iterator[str]:
    """The names of ``a, b as c`` or ``(a,\n b)``: ``a``, ``b``."""
    for part in listed.strip().strip("()\\").split(","):
        words = part.split()
        if words and words[0] != "*":
            yield words[0]


def _imported_names(text: str, path: Path) -> Iterator[tuple[Optional[Path], str]]:
    """(a package directory a relative import starts from, or None, dotted name) for every
    module an import may load, ``pytest_plugins`` strings included."""
    for match in _IMPORT.finditer(text):
        origin, names, modules = match.groups()
        if modules is not None:
            for name in _names(modules):
                yield None, name
            continue
        level = len(origin) - len(origin.lstrip("."))
        module = origin[level:]
        start: Optional[Path] = None
        if level:
            start = path.parent
            for _ in range(level - 1):
                start = start.parent
        for name in _names(names):
            yield start, f"{module}.{name}" if module else name
        if module:
            yield start, module
    for match in _PLUGINS.finditer(text):
        for name in _STRING.findall(match.group(1)):
            yield None, name


def _candidates(base: Path, dotted: str) -> Iterator[Path]:
    """The files importing ``dotted`` from ``base`` may run: each package on the way and the
    module itself."""
    parts = [p for p in dotted.split(".") if p]
    for n in range(1, len(parts) + 1):
        stem = base.joinpath(*parts[:n])
        yield stem.with_name(stem.name + ".py")
        yield stem / "__init__.py"
    if not parts:
        yield base / "__init__.py"


class _Imports:
    """Follows imports from the audited files to walked files that were not audited yet."""

    def __init__(self, project: Project, pending: set[Path]) -> None:
        self.project = project
        self.pending = pending
        self.bases = [project.root, *project.source_roots]
        self.bases += [project.root / p for p in project.naming.pythonpath]

    def follow(self, start: Iterable[Path]) -> set[Path]:
        """Every pending file the files of ``start`` import, directly or not."""
        reached: set[Path] = set()
        work = list(start)
        while work and self.pending:
            path = work.pop()
            for found in self._imports(path):
                if found in self.pending:
                    self.pending.discard(found)
                    reached.add(found)
                    work.append(found)
        return reached

    def _imports(self, path: Path) -> Iterator[Path]:
        try:
            text = path.read_bytes().decode("utf-8", "replace")
        except OSError:
            return
        bases = [_basedir(path), *self.bases]
        for start, dotted in _imported_names(text, path):
            for base in [start] if start is not None else bases:
                yield from _candidates(base, dotted)


def select(project: Project, walked: Sequence[Path], paths: Sequence[Path]) -> Scope:
    """Split the walked files into those audited and those skipped (``paths``: the paths
    given, files among them named outright)."""
    naming = project.naming
    args = collection_args(project, paths)
    named = {p.resolve() for p in paths if p.is_file()}
    audited: set[Path] = set()
    pending: set[Path] = set()
    for file in walked:
        arg = _reached(naming, file, args)
        if file in named:
            audited.add(file)
        elif file.name == "conftest.py":
            # pytest loads the conftest files of every directory it walks and those above it
            if arg is not None or any(file.parent in (a, *a.parents) for a in args):
                audited.add(file)
            else:
                pending.add(file)
        elif arg is not None and (
            naming.test_file(file)
            or (naming.doctest_modules and file.name not in ("setup.py", "__main__.py"))
        ):
            audited.add(file)
        else:
            pending.add(file)
    # importing a module of a package runs the package's __init__.py files first
    packages = {init for file in audited for init in _inits(file)}
    audited |= packages & pending
    pending -= packages
    if pending:
        audited |= _Imports(project, pending).follow(sorted(audited))
        modules = {p for p in pending if package_module(project, p)}
        pending -= modules
        audited |= modules
    return Scope(tuple(sorted(audited)), tuple(sorted(pending)), _reasons(project, pending, args))


def _reasons(project: Project, skipped: Iterable[Path], args: Sequence[Path]) -> tuple[str, ...]:
    naming = project.naming
    reasons: list[str] = []
    for file in skipped:
        arg = _reached(naming, file, args)
        if arg is None and not any(a in file.parents for a in args):
            why = "outside testpaths " + " ".join(naming.testpaths)
        elif arg is None:
            why = "under norecursedirs " + " ".join(naming.norecursedirs)
        else:
            why = "not named as python_files " + " ".join(naming.files)
        if why not in reasons:
            reasons.append(why)
    return tuple(reasons)


def skipped_line(scope: Scope, relative: Sequence[str]) -> str:
    """The report's one line on the skipped files: how many, why, and the first few."""
    count = len(relative)
    names = ", ".join(relative[:SHOWN]) + (f", and {count - SHOWN} more" if count > SHOWN else "")
    return (
        f"skipped {count} file{'s' * (count != 1)} pytest would neither collect nor import "
        f"({'; '.join(scope.reasons)}): {names}"
    )
