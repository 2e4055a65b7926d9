"""truegreen's child shim: the parent test session's guards, loaded into this Python process.

The hermetic environment puts this directory first on PYTHONPATH. Python imports
``sitecustomize`` at start-up; this one starts the guards when the process belongs
to a truegreen run, then loads whatever ``sitecustomize`` would have loaded otherwise.
"""

import os
import sys

TYPE_CHECKING = False  # typing itself is too dear for a child's start-up
if TYPE_CHECKING:
    from typing import Callable, Optional


def _die_with_parent() -> None:
    if os.environ.get("_TRUEGREEN_PARENT"):
        try:
            from truegreen.guards.parent import from_environment
        except ImportError:  # another interpreter: not a run that truegreen started
            os.environ.pop("_TRUEGREEN_PARENT", None)
            return
        from_environment()


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
    except ImportError:  # another interpreter: load the truegreen this shim belongs to
        loaded = _from_here(run_dir)
        if loaded is not None:
            loaded(run_dir)
        return
    start(run_dir)


def _from_here(run_dir: str) -> "Optional[Callable[[str], None]]":
    """``truegreen.guards.child.start`` from the package around this file, for a Python whose
    path lacks it (another virtual environment, pip's build-isolation environment); None, and
    the child reported as unguarded, when it cannot be loaded."""
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    init = os.path.join(package, "__init__.py")
    reason = f"another interpreter ({sys.executable}): cannot import truegreen"
    if os.path.exists(init) and "truegreen" not in sys.modules:
        import importlib.util

        saved = sys.dont_write_bytecode
        sys.dont_write_bytecode = True  # leave no bytecode of another version beside truegreen's
        try:
            spec = importlib.util.spec_from_file_location(
                "truegreen", init, submodule_search_locations=[package]
            )
            if spec is None or spec.loader is None:
                raise ImportError(init)
            module = importlib.util.module_from_spec(spec)
            sys.modules["truegreen"] = module
            spec.loader.exec_module(module)
            from truegreen.guards.child import start

            return start
        except Exception as exc:  # too old a Python, a broken copy: say so, never fail the child
            for name in [n for n in sys.modules if n.split(".")[0] == "truegreen"]:
                del sys.modules[name]
            reason = f"{reason} ({type(exc).__name__}: {exc})"
        finally:
            sys.dont_write_bytecode = saved
    _report_unguarded(run_dir, reason)
    return None


def _report_unguarded(run_dir: str, reason: str) -> None:
    """One ``unguarded`` record in this process's file of the event stream, spelled here
    because truegreen's own writer cannot be loaded (tests check it against the schema)."""
    import json
    import time

    now, pid = time.time(), os.getpid()
    current = os.environ.get("PYTEST_CURRENT_TEST", "")
    test = current.rsplit(" (", 1)[0] if current.endswith(")") else None
    program = os.path.basename(sys.executable or "python")
    records = [
        {"v": 1, "event": "process", "t": now, "pid": pid, "ppid": os.getppid(), "role": "child"},
        {"event": "unguarded", "t": now, "test": test or None, "program": program,
         "reason": reason, "pid": pid},
    ]  # fmt: skip
    text = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records)
    try:
        with open(os.path.join(run_dir, f"child-{pid}.jsonl"), "a", encoding="utf-8") as handle:
            handle.write(text)
    except OSError:
        pass


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
_die_with_parent()  # after the mutant: an ablation reaches truegreen.guards.parent
_start_guards()
_chain()
