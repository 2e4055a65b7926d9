"""An ablated module served from memory: the user's file is never written.

``truegreen ablate`` starts pytest with ``_TRUEGREEN_MUTANT`` naming a file that holds the
target's path and its ablated source. The ``sitecustomize`` shim installs
:class:`MutantFinder` first on ``sys.meta_path`` in that process and in every Python child
it starts, so the mutant is what runs everywhere. It compiles from the string each time:
no bytecode is read or written, so a same-size edit within the same second cannot run a
stale ``.pyc``.
"""

from __future__ import annotations

import linecache
import marshal
import os
import sys
from importlib.machinery import PathFinder  # imported here: an import inside find_spec recurses

TYPE_CHECKING = False  # typing itself is too dear for a child's start-up
if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType
    from typing import Any, Optional

MUTANT_VAR = "_TRUEGREEN_MUTANT"


def _key(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


class MutantLoader:
    """Executes the ablated source instead of the file's."""

    def __init__(self, source: str, origin: str) -> None:
        self.source = source
        self.origin = origin

    def create_module(self, spec: Any) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        lines = self.source.splitlines(keepends=True)
        linecache.cache[self.origin] = (len(self.source), None, lines, self.origin)
        exec(compile(self.source, self.origin, "exec", dont_inherit=True), module.__dict__)

    def get_source(self, fullname: str) -> str:
        return self.source


class MutantFinder:
    """Finds modules as usual, and swaps in :class:`MutantLoader` for the target files."""

    def __init__(self, path: str, source: str, more: Optional[dict[str, str]] = None) -> None:
        self.sources = {_key(path): source}
        for other, text in (more or {}).items():
            self.sources[_key(other)] = text

    def find_spec(
        self, fullname: str, path: Optional[Sequence[str]] = None, target: Any = None
    ) -> Any:
        spec = PathFinder.find_spec(fullname, path)
        if spec is None or not spec.origin:
            return None
        source = self.sources.get(_key(spec.origin))
        if source is None:
            return None
        spec.loader = MutantLoader(source, spec.origin)  # type: ignore[assignment]
        spec.cached = None
        return spec


def install_from_environment() -> bool:
    """Install the finder named by ``_TRUEGREEN_MUTANT``; False when there is none."""
    spec_file = os.environ.get(MUTANT_VAR)
    if not spec_file:
        return False
    with open(spec_file, "rb") as handle:
        data = marshal.load(handle)
    sys.meta_path.insert(0, MutantFinder(data["path"], data["source"], data.get("more")))
    return True


def to_front() -> None:
    """Put the finder back first (pytest's assertion rewriter inserts itself at the front)."""
    for finder in list(sys.meta_path):
        if isinstance(finder, MutantFinder):
            sys.meta_path.remove(finder)
            sys.meta_path.insert(0, finder)


def write_spec(
    spec_file: str, path: str, source: str, more: Optional[dict[str, str]] = None
) -> None:
    """The mutant of ``path``; ``more``: other files' (a batch of ``ablate --discover``)."""
    data: dict[str, Any] = {"path": os.path.realpath(path), "source": source}
    if more:
        data["more"] = {os.path.realpath(p): text for p, text in more.items()}
    with open(spec_file, "wb") as handle:
        marshal.dump(data, handle)


# -- switched mutants (``truegreen ablate --discover``) ---------------------------------
# A batch serves each target with all its claims in, each behind a switch: ``on(N)`` is
# true while claim N runs (the batch plugin sets it; a Python child started meanwhile reads
# it from ACTIVE_VAR).

ACTIVE_VAR = "_TRUEGREEN_ACTIVE"
active = int(os.environ.get(ACTIVE_VAR) or 0)


def on(claim: int) -> bool:
    return claim == active


def switch(claim: int) -> None:
    """Claim ``claim`` on (0: none), here and in the Python children started from now."""
    global active
    active = claim
    if claim:
        os.environ[ACTIVE_VAR] = str(claim)
    else:
        os.environ.pop(ACTIVE_VAR, None)
