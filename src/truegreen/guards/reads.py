"""The read guard: a test that opens a file under the real home, or in a directory above the
rootdir (a ``.env`` found by walking up from the test file), to read it.

What Python itself reads is no violation: its prefixes, every ``sys.path`` entry, the site
and user-site packages, the venv wherever it lives, and the modules it imports. Every open
for reading passes through here while a test runs, so the usual answer (a path in the project,
in the venv, or anywhere that is neither the home nor above the rootdir) is a few string
comparisons; only a path that looks like a leak is resolved and checked again.
"""

from __future__ import annotations

import os
import sys

from truegreen.core.paths import under

TYPE_CHECKING = False  # typing itself is too dear for a child's start-up
if TYPE_CHECKING:
    from typing import Any, Optional

    from truegreen.guards.runtime import Guard

_SEP = os.sep
# What the import system opens: a read of one of these is Python's own, wherever it lies.
_IMPORTED = (".py", ".pyc", ".pyi", ".pyw", ".so", ".pyd", ".pth", ".dylib")
_UNSEEN = object()
LABEL_HOME = "under the real home"
LABEL_ABOVE = "in a directory above the rootdir"
# A process's environment as it started (/proc/self/environ, the parent's, a thread's): the
# variables the seal removed from os.environ are still there, credentials included.
LABEL_ENVIRON = "a process's environment, as it was before the seal"
ENVIRON_GLOB = "/proc/*/environ"
_ENVIRON = "/environ"


def is_proc_environ(path: str) -> bool:
    """Whether ``path`` is some process's ``/proc/<pid>/environ`` (or a thread's)."""
    if not path.startswith("/proc/") or not path.endswith(_ENVIRON):
        return False
    parts = path.split("/")[2:-1]  # ["self"], ["123"], ["self", "task", "7"], ...
    if len(parts) == 3 and parts[1] == "task" and parts[2].isdigit():
        parts = parts[:1]
    return len(parts) == 1 and (parts[0] in ("self", "thread-self") or parts[0].isdigit())


def ancestors(path: str) -> set[str]:
    """The directories strictly above ``path``: ``/a/b/c`` -> {"/a/b", "/a", "/"}."""
    found = set()
    head = os.path.dirname(path)
    while head and head not in found:
        found.add(head)
        if head == os.path.dirname(head):
            break
        head = os.path.dirname(head)
    found.discard(path)
    return found


def python_paths() -> tuple[str, ...]:
    """What this Python reads from by itself: its prefixes, ``sys.path`` (as it is now), the
    site and user-site packages, and the venv of ``VIRTUAL_ENV``."""
    found = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    found += [p or os.curdir for p in sys.path]
    site = sys.modules.get("site")
    if site is not None:
        packages = getattr(site, "getsitepackages", None)  # not in old virtualenvs' site
        if packages is not None:
            found += list(packages())
        user = getattr(site, "USER_SITE", None)
        if user:
            found.append(user)
    venv = os.environ.get("VIRTUAL_ENV")
    if venv:
        found.append(venv)
    return tuple(dict.fromkeys(os.path.abspath(p) for p in found if p))


class ReadGuard:
    """Decides, for each open for reading during a test, whether it reached outside."""

    def __init__(self, guard: Guard) -> None:
        policy = guard.policy
        roots = policy.roots
        protected = dict(roots.protected)
        self.guard = guard
        self.mode = policy.reads
        self.home = protected.get("home", "")
        self.project = protected.get("project", "")
        self.allowed = roots.allowed
        self.globs = policy.read_globs
        self.seen: set[tuple[Optional[str], str]] = set()
        # path as opened -> None (inside) or (real path, why it is outside)
        self.verdicts: dict[str, Any] = {}
        homes = {self.home, *policy.read_homes} - {""}
        projects = {self.project, *policy.read_projects} - {""}
        # The lexical first look: a path not under one of these prefixes, nor directly in
        # one of these directories, cannot be a leak (symlinks aside: resolved on a hit).
        self.home_prefixes = tuple(h.rstrip(_SEP) + _SEP for h in homes)
        self.project_prefixes = tuple(p.rstrip(_SEP) + _SEP for p in projects)
        self.above: set[str] = set()
        for project in projects:
            self.above |= ancestors(project)
        self.above_real = ancestors(self.project) if self.project else set()
        # Python's own: the session's (a child reads from the parent's venv too) and ours;
        # the home itself or a directory above the rootdir on sys.path (``python -m pytest``
        # run from there) is left to the slow path, which lets through only what imports read.
        broad = homes | self.above
        own = [p for p in (*policy.python_paths, *python_paths()) if p not in broad]
        self.python_prefixes = tuple(p.rstrip(_SEP) + _SEP for p in dict.fromkeys(own))

    def __call__(self, path: Any) -> None:
        if isinstance(path, int):
            return
        text = path if type(path) is str else os.fsdecode(os.fspath(path))
        if not text.startswith(_SEP):
            text = os.path.abspath(text)
        if text.endswith(_ENVIRON) and is_proc_environ(os.path.normpath(text)):
            self._environ(os.path.normpath(text))
            return
        if text.startswith(self.project_prefixes):
            return
        cut = text.rfind(_SEP)
        if not text.startswith(self.home_prefixes) and (text[:cut] or _SEP) not in self.above:
            return
        if text.startswith(self.python_prefixes):
            return
        self._slow(text)

    def _slow(self, text: str) -> None:
        """The path looked like a leak: resolve it and decide, once a path as spelled."""
        verdicts = self.verdicts
        verdict = verdicts.get(text, _UNSEEN)
        if verdict is _UNSEEN:
            if len(verdicts) >= 4096:
                verdicts.clear()
            real = os.path.realpath(text)
            label = self.outside(real)
            verdict = verdicts[text] = None if label is None else (real, label)
        if verdict is None:
            return
        real, label = verdict
        key = (self.guard.test, real)
        if key in self.seen:  # one violation a file a test, however often it is read
            return
        self.seen.add(key)
        self.guard.report(
            "read", "open for reading", f"{real} ({label})", blocked=False, mode=self.mode
        )

    def _environ(self, text: str) -> None:
        """A read of a process's environment: the credentials the seal took out of
        ``os.environ`` are there as the process started."""
        if self.globs:
            from fnmatch import fnmatchcase

            if any(fnmatchcase(text, g) for g in self.globs):
                return
        key = (self.guard.test, text)
        if key in self.seen:
            return
        self.seen.add(key)
        self.guard.report(
            "read", "open for reading", f"{text} ({LABEL_ENVIRON})", blocked=False, mode=self.mode
        )

    def outside(self, real: str) -> Optional[str]:
        """Why reading the real path ``real`` reaches outside the sandbox, or None."""
        home, project = self.home, self.project
        if project and under(real, project):
            return None
        folder = os.path.dirname(real)
        in_home = bool(home) and under(real, home) and real != home
        above = folder in self.above_real
        if not (in_home or above) or os.path.isdir(real):  # a directory is no file read
            return None
        for allowed in self.allowed:
            # A file directly in the temporary directory (mkstemp's); under the home, any
            # allowed directory inside it (a --basetemp in the home).
            if folder == allowed or (in_home and under(real, allowed) and len(allowed) > len(home)):
                return None
        if self.globs:
            from fnmatch import fnmatchcase

            slashed = real.replace(_SEP, "/")
            if any(fnmatchcase(slashed, g) for g in self.globs):
                return None
        if self.python_own(real, folder):
            return None
        return LABEL_ABOVE if above else LABEL_HOME

    def python_own(self, real: str, folder: str) -> bool:
        """Whether Python itself reads ``real``: under one of its paths (one that is the home
        or holds the rootdir counts for the files Python imports only), an imported file, or
        inside the directory of a package already imported (its data)."""
        if real.endswith(_IMPORTED):
            return True
        broad = {self.home, *self.above_real}
        for entry in (*python_paths(), *self.guard.policy.python_paths):
            entry = os.path.realpath(entry)
            if entry not in broad and (entry == real or under(real, entry)):
                return True
        packages = _package_dirs(broad)
        while folder and folder not in broad:
            if folder in packages:
                return True
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
        return False


_PACKAGES: list[Any] = [-1, frozenset()]  # (len(sys.modules) when built, the directories)


def _package_dirs(broad: set[str]) -> frozenset[str]:
    """The real directories of the packages imported so far (kept until more are)."""
    count = len(sys.modules)
    if _PACKAGES[0] != count:
        found = set()
        for module in list(sys.modules.values()):
            for entry in getattr(module, "__path__", None) or ():
                if isinstance(entry, str):
                    found.add(os.path.realpath(entry))
        _PACKAGES[:] = [count, frozenset(found - broad)]
    result: frozenset[str] = _PACKAGES[1]
    return result
