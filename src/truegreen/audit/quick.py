"""The audit's quick answer: a run's output replayed when nothing it read has changed.

The content-keyed cache (:mod:`truegreen.audit.cache`) reads and hashes every file of the
project and needs the rules and the configuration loaded to make its key. A pre-commit hook
runs the audit on every commit, mostly over a tree that has not changed, so one step comes
before it, as ruff's and git's do: an index of the command lines run in this tree, each with
the output it printed, its exit status, and the file-system stamp (modification and change
times in nanoseconds, size, inode) of everything the answer depended on: every directory and
``.py`` file of the project, the configuration files pytest and truegreen look for from the
working directory up (their absence too; not the directories above the project, where files
come and go that no audit reads), and truegreen's own modules. When every stamp still
matches, the output is printed again without importing the rules, the parser or argparse; at
the first stamp that differs, the audit goes the usual way (the content-keyed cache, then a
real audit) and the entry is written again. A directory's stamp changes when a file is added
to it, removed from it or renamed in it, as git's untracked cache relies on.

An entry is written only when nothing it stamps changed while the run read it, and only when
every stamp is older than :data:`SETTLE_NS`: a file changed again within the file system's
timestamp resolution after its stamp was taken could otherwise keep the same stamp (git's
"racily clean" entries). The index lives beside the content-keyed entries, in
``.truegreen_cache/audit/quick``, written to a temporary file and renamed into place; it is
found from the working directory up, so a project that moves its cache under pytest's
``cache_dir`` is answered by the content-keyed cache alone. This module imports nothing but
builtin modules at start-up: the quick answer costs a few milliseconds.
"""

from __future__ import annotations

import marshal
import os
import sys
import time

TYPE_CHECKING = False  # typing itself costs more than the whole quick answer
if TYPE_CHECKING:
    from typing import IO, Any, Callable, Optional

    Stamp = Optional[tuple[int, int, int, int]]

FORMAT = 1  # of the index; a change of layout makes the old index a miss
PLACE = os.path.join(".truegreen_cache", "audit")
NAME = "quick"
KEPT = 16  # command lines kept in the index (the most recent)
SETTLE_NS = 3_000_000_000  # a stamp younger than this (FAT keeps times to 2 s) is not trusted
# The files pytest and truegreen take their configuration from, looked for from the working
# directory up: their appearance, change or removal anywhere up there is a new answer.
CONFIG_NAMES = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "pyproject.toml",
                "tox.ini", "setup.cfg", "setup.py")  # fmt: skip


def stamp(path: str) -> Stamp:
    """Modification and change times (ns), size and inode of ``path``; None when missing."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_mtime_ns, found.st_ctime_ns, found.st_size, found.st_ino)


def ancestors(directory: str) -> list[str]:
    """``directory`` and every directory above it, up to the root."""
    found = [directory]
    while True:
        parent = os.path.dirname(found[-1])
        if parent == found[-1]:
            return found
        found.append(parent)


def _key(words: tuple[str, ...], cwd: str) -> tuple[Any, ...]:
    from truegreen import __version__

    return (words, cwd, sys.version, sys.executable, __version__)


def _load(path: str) -> dict[Any, Any]:
    try:
        with open(path, "rb") as handle:
            index = marshal.loads(handle.read())  # load() reads object by object
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(index, dict) or index.get("format") != FORMAT:
        return {}
    return index


def answer(words: list[str], out: Optional[IO[str]] = None) -> Optional[int]:
    """``truegreen audit WORDS``'s exit status, its output printed, when the index holds this
    command line from this directory and nothing it stamped has changed; None otherwise,
    having printed nothing."""
    cwd = os.getcwd()
    key = _key(tuple(words), cwd)
    for directory in ancestors(cwd):
        index = _load(os.path.join(directory, PLACE, NAME))
        if index:
            break
    else:
        return None
    entry = index.get("entries", {}).get(key)
    if entry is None:
        return None
    try:
        paths, stamps, output, status = entry
        if len(paths) != len(stamps):
            return None
        for path, expected in zip(paths, stamps):
            if stamp(path) != expected:
                return None
    except (TypeError, ValueError):  # an index of another layout
        return None
    stream = sys.stdout if out is None else out
    try:
        if output:
            stream.write(output + "\n")
        stream.flush()
    except BrokenPipeError:  # as the command line's main does: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + 13
    return int(status)


class Watch:
    """The stamps of what one audit run reads, taken before it reads them and checked after,
    for an index entry (:func:`record`)."""

    def __init__(self, start: str) -> None:
        self.started = time.time_ns()
        self.cwd = os.getcwd()
        # Read before the project is known: the configuration files from ``start`` up (and
        # from the working directory up, where the quick answer looks), present or not, and
        # truegreen's modules. Above the project, nothing else can change the answer: a file
        # created in the home or the temporary directory is no concern of the audit's.
        tops = {start, self.cwd}
        dirs = {d for top in tops for d in ancestors(top)}
        names = sorted(os.path.join(d, n) for d in dirs for n in CONFIG_NAMES)
        self.fixed = names + code_paths()
        self.before = [stamp(p) for p in self.fixed]
        # The listings of ``start`` and the directories above it, of which the project's root
        # is one: its layout is read from its listing before the project's own stamps are
        # taken, so its listing must not change meanwhile (:meth:`project` checks the root
        # and what lies between it and ``start``, and forgets the rest).
        self.around = sorted(ancestors(start))
        self.steady = [stamp(p) for p in self.around]
        self.paths: list[str] = []
        self.stamps: list[Stamp] = []
        self.stamped = self.started

    def project(self, paths: list[str], prepare: Callable[[], object], root: str) -> None:
        """Once the project is found (its ``root``): check the root's listing and those
        below it down to ``start`` did not change meanwhile, ``prepare`` the cache's directory
        (its creation changes the root's stamp), then stamp the project's directories and
        files, before the audit reads them."""
        inside = os.path.join(root, "")
        for directory, before in zip(self.around, self.steady):
            if (directory == root or directory.startswith(inside)) and stamp(directory) != before:
                self.steady = []  # never settles
                break
        prepare()
        self.stamped = time.time_ns()
        self.paths = paths
        self.stamps = [stamp(p) for p in paths]

    def settled(self) -> bool:
        """Whether nothing stamped changed since, and every stamp is old enough to trust."""
        if not self.steady or [stamp(p) for p in self.fixed] != self.before:
            return False
        if [stamp(p) for p in self.paths] != self.stamps:
            return False
        return _older(self.before, self.started - SETTLE_NS) and _older(
            self.stamps, self.stamped - SETTLE_NS
        )


def _older(stamps: list[Stamp], limit: int) -> bool:
    """Whether each stamp's file was last modified or changed before ``limit`` (ns)."""
    return all(s is None or max(s[0], s[1]) < limit for s in stamps)


def code_paths() -> list[str]:
    """truegreen's directories and modules: an edited checkout (the version unchanged) is a
    new answer."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    found = []
    for here, dirnames, filenames in os.walk(package):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        found.append(here)
        found.extend(os.path.join(here, n) for n in sorted(filenames) if n.endswith(".py"))
    return found


def record(where: str, watch: Watch, words: list[str], output: str, status: int) -> None:
    """Keep ``output`` and ``status`` for ``words`` in the index under ``where`` (the
    project's audit cache), when the run's stamps have settled; a failure to write leaves
    the index as it was."""
    if not watch.settled():
        return
    cwd_ancestors = ancestors(watch.cwd)
    top = os.path.dirname(os.path.dirname(where))  # the directory holding .truegreen_cache
    if os.path.join(top, PLACE) != where or top not in cwd_ancestors:
        return  # not where the quick answer looks
    path = os.path.join(where, NAME)
    index = _load(path) or {"format": FORMAT, "entries": {}}
    entries = index["entries"]
    key = _key(tuple(words), watch.cwd)
    entries.pop(key, None)  # the newest last
    entries[key] = (
        tuple(watch.fixed + watch.paths),
        tuple(watch.before + watch.stamps),
        output,
        int(status),
    )
    for old in list(entries)[: max(len(entries) - KEPT, 0)]:
        del entries[old]
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        with open(temporary, "wb") as handle:
            handle.write(marshal.dumps(index))
        os.replace(temporary, path)
    except (OSError, ValueError):
        import contextlib

        with contextlib.suppress(OSError):
            os.unlink(temporary)
