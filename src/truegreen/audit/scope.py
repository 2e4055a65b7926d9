"""Which of the walked files an audit reads: what pytest would collect, the conftest files it
loads, the project's own modules, and every file those import; the rest is skipped.

pytest never imports a ``.py`` file it does not collect and nothing imports (invalid Python
kept as test data, a script, a documentation example), so the audit has nothing to say about
it: a syntax error there breaks no test run.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import glob
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from truegreen.audit.base import Project

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


IGNORES = ("collect_ignore", "collect_ignore_glob")


def _ignore_lists(path: Path) -> dict[str, list[str]]:
    """A conftest's ``collect_ignore`` and ``collect_ignore_glob``, as far as its module-level
    statements say without running it: assigned, extended or appended string literals. What
    is set under a condition is left out (the audit then reads more, never less)."""
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    found: dict[str, list[str]] = {}
    for node in tree.body:
        target: Optional[ast.expr] = None
        values: Optional[ast.expr] = None
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            target, values = targets[0], node.value
            if isinstance(node, ast.Assign) and isinstance(target, ast.Name):
                found.pop(target.id, None)
        elif (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute)
            and node.value.func.attr in ("append", "extend")
            and len(node.value.args) == 1
        ):
            target, values = node.value.func.value, node.value.args[0]
            if node.value.func.attr == "append":
                values = ast.List(elts=[values], ctx=ast.Load())
        if not (isinstance(target, ast.Name) and target.id in IGNORES):
            continue
        if isinstance(values, (ast.List, ast.Tuple)):
            strings = [e.value for e in values.elts
                       if isinstance(e, ast.Constant) and isinstance(e.value, str)]  # fmt: skip
            found.setdefault(target.id, []).extend(strings)
    return found


class _Collection:
    """How pytest walks down from its arguments: ``norecursedirs``, and the conftest files'
    ``collect_ignore`` and ``collect_ignore_glob`` (each from the nearest conftest that sets
    it, its entries relative to that conftest's directory)."""

    def __init__(self, project: Project, args: Sequence[Path], conftests: Iterable[Path]):
        self.project = project
        self.naming = project.naming
        self.args = args
        self.ignores: dict[str, dict[Path, list[str]]] = {key: {} for key in IGNORES}
        for conftest in conftests:
            for key, values in _ignore_lists(conftest).items():
                self.ignores[key][conftest.parent] = values
        self.directories: dict[Path, str] = {}  # _blocked of each directory walked into

    def _nearest(self, key: str, directory: Path) -> Optional[tuple[Path, list[str]]]:
        setters = [d for d in self.ignores[key] if d == directory or d in directory.parents]
        if not setters:
            return None
        deepest = max(setters, key=lambda d: len(d.parts))
        return deepest, self.ignores[key][deepest]

    def _blocked(self, path: Path, directory: bool) -> str:
        """Why pytest does not collect ``path`` (a file, or a directory it would walk into);
        empty when it does."""
        ignored = self._nearest("collect_ignore", path.parent)
        if ignored and path in {ignored[0] / entry for entry in ignored[1]}:
            return f"collect_ignore in {self._show(ignored[0] / 'conftest.py')}"
        globbed = self._nearest("collect_ignore_glob", path.parent)
        if globbed and any(
            fnmatch.fnmatch(str(path), str(globbed[0] / entry)) for entry in globbed[1]
        ):
            return f"collect_ignore_glob in {self._show(globbed[0] / 'conftest.py')}"
        if directory and self.naming.norecurse(path):
            return "under norecursedirs " + " ".join(self.naming.norecursedirs)
        return ""

    def _show(self, path: Path) -> str:
        try:
            return path.relative_to(self.project.root).as_posix()
        except ValueError:
            return path.as_posix()

    def reach(self, file: Path) -> tuple[Optional[Path], str]:
        """(the argument pytest reaches ``file`` from, or None; why it does not)."""
        why = "outside testpaths " + " ".join(self.naming.testpaths)
        for arg in self.args:
            if file == arg:
                return arg, ""
            if arg not in file.parents:
                continue
            why = self._blocked(file, directory=False)
            below = file.parent
            while not why and below != arg:
                known = self.directories.get(below)
                if known is None:
                    known = self.directories[below] = self._blocked(below, directory=True)
                why = known
                below = below.parent
            if not why:
                return arg, ""
        return None, why


def top_name(parts: tuple[str, ...]) -> str:
    """The importable top-level name of a path relative to a source root: its first
    directory, or the module itself (``app.py`` is ``app``)."""
    return parts[0][:-3] if len(parts) == 1 and parts[0].endswith(".py") else parts[0]


def package_module(project: Project, path: Path) -> bool:
    """Whether ``path`` is a module of the project's own packages: under a source root, in
    one of its packages, reached through directories that are packages (``__init__.py``),
    so that an import can name it. A data directory inside a package is not one."""
    for root in project.source_roots:
        try:
            parts = path.relative_to(root).parts
        except ValueError:
            continue
        top = top_name(parts)
        if top not in project.packages:
            continue
        return all((root.joinpath(*parts[:n]) / "__init__.py").is_file()
                   for n in range(1, len(parts)))  # fmt: skip
    return False


@functools.cache
def _package(directory: Path) -> bool:
    """Whether ``directory`` holds an ``__init__.py`` (asked again and again for the same
    directories during one :func:`select`, which empties this cache when it starts)."""
    return (directory / "__init__.py").is_file()


def _basedir(path: Path) -> Path:
    """The directory pytest's default import mode puts on ``sys.path`` for a test module:
    the first one up that is not a package."""
    directory = path.parent
    while _package(directory) and directory.parent != directory:
        directory = directory.parent
    return directory


def _inits(path: Path) -> Iterator[Path]:
    """The ``__init__.py`` of each package ``path`` sits in, innermost first."""
    directory = path.parent
    while _package(directory) and directory.parent != directory:
        yield directory / "__init__.py"
        directory = directory.parent


# Import statements read from the text, not the tree: a parse of every audited file would
# cost a third of the audit again. A match inside a string only makes the audit read more.
# Each starts at a line's start: the pattern leads with the newline (the text is read with
# one put in front), a literal the regex engine jumps to, rather than a ``^`` it would try at
# every character.
_IMPORT = re.compile(
    r"\n[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]*(\([^)]*\)|[^\n#;]*)"
    r"|import[ \t]+([^\n#;]*))"
)
_PLUGINS = re.compile(r"^pytest_plugins\s*=\s*(\[[^\]]*\]|\([^)]*\)|[^\n]*)", re.MULTILINE)
_STRING = re.compile(r"[\"']([\w.]+)[\"']")


def _names(listed: str) -> Iterator[str]:
    """The names of ``a, b as c`` or ``(a,\n b)``: ``a``, ``b``."""
    for part in listed.strip().strip("()\\").split(","):
        words = part.split()
        if words and words[0] != "*":
            yield words[0]


def _imported_names(text: str, path: str) -> Iterator[tuple[Optional[str], str]]:
    """(a package directory a relative import starts from, or None, dotted name) for every
    module an import may load, ``pytest_plugins`` strings included."""
    for match in _IMPORT.finditer("\n" + text):
        origin, names, modules = match.groups()
        if modules is not None:
            for name in _names(modules):
                yield None, name
            continue
        level = len(origin) - len(origin.lstrip("."))
        module = origin[level:]
        start: Optional[str] = None
        if level:
            start = os.path.dirname(path)
            for _ in range(level - 1):
                start = os.path.dirname(start)
        for name in _names(names):
            yield start, f"{module}.{name}" if module else name
        if module:
            yield start, module
    if "pytest_plugins" in text:
        for match in _PLUGINS.finditer(text):
            for name in _STRING.findall(match.group(1)):
                yield None, name


def _candidates(base: str, dotted: str) -> Iterator[str]:
    """The files importing ``dotted`` from ``base`` may run: each package on the way and the
    module itself."""
    parts = [p for p in dotted.split(".") if p]
    if "/" in dotted or os.sep in dotted:  # text in a string: as a path would join it
        for n in range(1, len(parts) + 1):
            path = Path(base).joinpath(*parts[:n])
            yield str(path.with_name(path.name + ".py"))
            yield str(path / "__init__.py")
        if not parts:
            yield str(Path(base) / "__init__.py")
        return
    stem = base
    for part in parts:
        stem = os.path.join(stem, part)
        yield stem + ".py"
        yield os.path.join(stem, "__init__.py")
    if not parts:
        yield os.path.join(base, "__init__.py")


class _Imports:
    """Follows imports from the audited files to walked files that were not audited yet
    (paths as strings: this looks up tens of thousands of candidates)."""

    def __init__(self, project: Project, pending: set[Path]) -> None:
        self.project = project
        self.pending = {str(p): p for p in pending}
        bases = [project.root, *project.source_roots]
        bases += [project.root / p for p in project.naming.pythonpath]
        self.bases = [str(b) for b in bases]
        # (start, dotted name) pairs already followed: their files are the same each time, and
        # those pending were taken the first time, so a second look finds nothing new.
        self.seen: set[tuple[str, str]] = set()
        # The name a candidate file is imported by (its stem, or its package's directory):
        # a dotted name none of whose parts is one of these cannot reach a pending file.
        self.names = {p.parent.name if p.name == "__init__.py" else p.stem for p in pending}
        self.names.discard("")

    def follow(self, start: Iterable[Path]) -> set[Path]:
        """Every pending file the files of ``start`` import, directly or not."""
        reached: set[Path] = set()
        pending = self.pending
        work = list(start)
        while work and pending:
            path = work.pop()
            for found in self._imports(path):
                taken = pending.pop(found, None)
                if taken is not None:
                    reached.add(taken)
                    work.append(taken)
        return reached

    def _imports(self, path: Path) -> Iterator[str]:
        try:
            text = path.read_bytes().decode("utf-8", "replace")
        except OSError:
            return
        seen = self.seen
        bases: list[str] = []
        names = self.names
        for start, dotted in _imported_names(text, str(path)):
            parts = dotted.split(".")
            if names.isdisjoint(parts) and any(parts) and not ("/" in dotted or os.sep in dotted):
                continue
            if start is not None:
                starts = [start]
            else:
                bases = bases or [str(_basedir(path)), *self.bases]
                starts = bases
            for base in starts:
                if (base, dotted) not in seen:
                    seen.add((base, dotted))
                    yield from _candidates(base, dotted)


def select(project: Project, walked: Sequence[Path], paths: Sequence[Path]) -> Scope:
    """Split the walked files into those audited and those skipped (``paths``: the paths
    given, files among them named outright)."""
    _package.cache_clear()  # the files may have changed since the last run in this process
    naming = project.naming
    args = collection_args(project, paths)
    named = {p.resolve() for p in paths if p.is_file()}
    above = {d / "conftest.py" for a in args for d in (a, *a.parents)
             if d == project.root or project.root in d.parents}  # fmt: skip
    conftests = {p for p in walked if p.name == "conftest.py"} | {p for p in above if p.is_file()}
    collection = _Collection(project, args, sorted(conftests))
    audited: set[Path] = set()
    pending: dict[Path, str] = {}
    for file in walked:
        arg, why = collection.reach(file)
        if file in named:
            audited.add(file)
        elif file.name == "conftest.py":
            # pytest loads the conftest files of every directory it walks and those above it
            if arg is not None or file in above:
                audited.add(file)
            else:
                pending[file] = why
        elif arg is not None and (
            naming.test_file(file)
            or (naming.doctest_modules and file.name not in ("setup.py", "__main__.py"))
        ):
            audited.add(file)
        else:
            pending[file] = why or "not named as python_files " + " ".join(naming.files)
    # importing a module of a package runs the package's __init__.py files first
    audited |= {init for file in audited for init in _inits(file)} & pending.keys()
    left = set(pending) - audited
    if left:
        reached = _Imports(project, left).follow(sorted(audited))
        audited |= reached
        left -= reached
        left -= {p for p in left if package_module(project, p)}
        audited |= set(pending) - left
    reasons = tuple(dict.fromkeys(pending[p] for p in sorted(left)))
    return Scope(tuple(sorted(audited)), tuple(sorted(left)), reasons)


def skipped_line(scope: Scope, relative: Sequence[str]) -> str:
    """The report's one line on the skipped files: how many, why, and the first few."""
    count = len(relative)
    names = ", ".join(relative[:SHOWN]) + (f", and {count - SHOWN} more" if count > SHOWN else "")
    return (
        f"skipped {count} file{'s' * (count != 1)} pytest would neither collect nor import "
        f"({'; '.join(scope.reasons)}): {names}"
    )
