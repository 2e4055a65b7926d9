"""truegreen's child shim: the parent test session's guards, loaded into this Python process.

The hermetic environment puts this directory first on PYTHONPATH. Python imports
``sitecustomize`` at start-up; this one starts the guards when the process belongs
to a truegreen run, then loads whatever ``sitecustomize`` would have loaded otherwise.
"""

import os
import sys


def _serve_mutant() -> None:
    if os.environ.get("_TRUEGREEN_MUTANT"):
        from truegreen.guards.mutant import install_from_environment

        install_from_environment()


def _start_guards() -> None:
    run_dir = os.environ.get("_TRUEGREEN_RUN")
    if not run_dir:
        return
    try:
        from truegreen.guards.child import start
    except ImportError:  # a Python that cannot import truegreen: nothing to load
        return
    start(run_dir)


def _chain() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    path = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    names = ("sitecustomize.py", "sitecustomize.pyc", "sitecustomize")
    if not any(os.path.exists(os.path.join(p or os.curdir, n)) for p in path for n in names):
        return  # the usual case: nothing to chain to, and no importlib machinery to load
    import importlib.machinery
    import importlib.util

    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


_serve_mutant()
_start_guards()
_chain()
