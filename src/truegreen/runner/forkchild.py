"""What a fork server's child needs to be the process it stands for, beyond a fork.

A child may need an environment of its own, and what the ``sitecustomize`` shim would have
done at start-up in it (:func:`environ`); and it may need to import afresh a file the server
must therefore never import (:class:`Avoid`, :func:`loaded_files`): ``truegreen ablate``
serves each run's mutant by an import hook, which a module already in ``sys.modules`` would
bypass.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from importlib.machinery import PathFinder  # here: an import inside find_spec recurses
from typing import Any

from truegreen.guards.parent import PARENT_VAR


class Avoided(BaseException):
    """Not an ImportError: a plugin's ``except ImportError`` fallback must not swallow it,
    or the server would keep a module built without the file a child must import afresh."""


class Avoid:
    """A finder that refuses, while the server preloads, the files a child must import."""

    def __init__(self, paths: Sequence[str]) -> None:
        self.paths = frozenset(paths)

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if self.paths:
            spec = PathFinder.find_spec(fullname, path)
            if spec is not None and spec.origin and os.path.realpath(spec.origin) in self.paths:
                raise Avoided(spec.origin)


def loaded_files() -> list[str]:
    """The real paths of the modules this process has imported."""
    found = {getattr(module, "__file__", None) for module in list(sys.modules.values())}
    return sorted(os.path.realpath(path) for path in found if isinstance(path, str))


def environ(env: dict[str, str]) -> None:
    """The child's own environment, and what the ``sitecustomize`` shim does at start-up in
    it: serve an ablation's mutant, start the guards of the test that runs ``truegreen``. (A
    forked child dies with the server, not with the server's parent: ``_TRUEGREEN_PARENT``
    stays out.)"""
    os.environ.clear()
    os.environ.update({name: value for name, value in env.items() if name != PARENT_VAR})
    tempfile: Any = sys.modules.get("tempfile")
    if tempfile is not None:  # as a new process would, it finds its TMPDIR afresh
        tempfile.tempdir = None
    if env.get("_TRUEGREEN_MUTANT"):
        from truegreen.guards.mutant import install_from_environment

        install_from_environment()
    if env.get("_TRUEGREEN_RUN"):
        from truegreen.guards.child import start

        start(env["_TRUEGREEN_RUN"])
