"""Which child process the guards reach: the shim kept on a child's PYTHONPATH, and why a
child the shim cannot reach is unguarded.

The guards enter a Python child through the ``sitecustomize`` shim, found through
``PYTHONPATH``. A test that sets ``PYTHONPATH`` itself (``monkeypatch.setenv``, an ``env=``
of its own) would start its child without it, so the subprocess guard puts the shim back at
spawn time: into the mapping the spawn was given, or, when the child inherits this process's
environment, into the C-level environment alone (``os.putenv``), so ``os.environ`` still reads
what the test set. Imported by every guarded child process: builtins only at import.
"""

from __future__ import annotations

import os
import sys

from truegreen.guards.policy import RUN_VAR

TYPE_CHECKING = False  # typing itself is too dear for a child's start-up
if TYPE_CHECKING:
    from typing import Any, Optional

SHIM_DIR = os.path.join(os.path.dirname(os.path.realpath(__file__)), "shim")
TEST_VAR = "PYTEST_CURRENT_TEST"  # pytest's own: how a child learns its test

# Why a Python child is unguarded, by the interpreter option that does it.
_FLAGS = {
    "I": "python -I: isolated mode ignores PYTHONPATH",
    "E": "python -E: ignores the PYTHON* variables, PYTHONPATH included",
    "S": "python -S: no site module, so no sitecustomize",
}
NOT_PYTHON = "not a Python program"
# Interpreter options whose value may be the next word (``-W error``, ``-X dev``).
_VALUED = frozenset("WX")
_LONG_VALUED = frozenset({"--check-hash-based-pycs"})
_putenv = os.putenv
_MISSING = "\0"  # no such program: nothing will run
_shebangs: dict[tuple[str, str], str] = {}  # (word, PATH) -> its first lines, "" or _MISSING


def with_shim(pythonpath: Optional[str]) -> str:
    """``PYTHONPATH`` with the shim first and the other entries in their order."""
    entries = pythonpath.split(os.pathsep) if pythonpath else []
    return os.pathsep.join([SHIM_DIR, *(p for p in entries if p != SHIM_DIR)])


def keep_shim(env: Any, run_dir: str) -> Optional[str]:
    """Make sure a child started with ``env`` (None: this process's) finds the shim and the run.

    Returns why it could not (an environment it cannot change), else None.
    """
    if env is None:
        # The child inherits the C-level environment: amend that, not os.environ, so the test
        # reads back what it set. os.environ writes through putenv, so the next change the
        # test (or its teardown) makes to PYTHONPATH puts the two in step again.
        current = os.environ.get("PYTHONPATH")
        wanted = with_shim(current)
        if wanted != current:
            _putenv("PYTHONPATH", wanted)
        if RUN_VAR not in os.environ:
            _putenv(RUN_VAR, run_dir)
        return None
    try:
        binary = b"PYTHONPATH" in env or any(isinstance(key, bytes) for key in env)
        key: Any = b"PYTHONPATH" if binary else "PYTHONPATH"
        current = env.get(key)
        wanted = with_shim(os.fsdecode(current) if current is not None else None)
        if current is None or os.fsdecode(current) != wanted:
            env[key] = os.fsencode(wanted) if binary else wanted
        for name, value in ((RUN_VAR, run_dir), (TEST_VAR, os.environ.get(TEST_VAR))):
            name_key: Any = os.fsencode(name) if binary else name
            if value is not None and name_key not in env:
                env[name_key] = os.fsencode(value) if binary else value
    except (TypeError, AttributeError, ValueError):
        return "its environment could not be given the shim (a read-only mapping)"
    return None


def python_flags(args: list[str]) -> str:
    """The one-letter interpreter options before the script, ``-c`` or ``-m`` (``-IS`` -> IS)."""
    flags = ""
    words = iter(args)
    for arg in words:
        if arg == "--" or arg == "-" or not arg.startswith("-"):
            break
        if arg.startswith("--"):
            if arg in _LONG_VALUED:
                next(words, None)
            continue
        letters = arg[1:]
        for index, letter in enumerate(letters):
            if letter in "cm":
                return flags
            if letter in _VALUED:
                if index == len(letters) - 1:
                    next(words, None)
                break
            flags += letter
    return flags


def is_python_name(name: str) -> bool:
    """``python``, ``python3.12``, ``pythonw``, ``pypy3``: the names of an interpreter."""
    for stem in ("python", "pypy"):
        if name.startswith(stem):
            rest = name[len(stem) :]
            rest = rest[:-1] if rest.endswith(("w", "d")) else rest
            return all(c.isdigit() or c == "." for c in rest)
    return name == os.path.basename(sys.executable)


def _shebang(word: str, env: Any, cwd: Any) -> str:
    """The first two lines of the program ``word`` names if they start with ``#!``, else "";
    ``_MISSING`` when there is no such program."""
    path_var = (env.get("PATH") if hasattr(env, "get") else None) or os.environ.get("PATH", "")
    if isinstance(path_var, bytes):
        path_var = os.fsdecode(path_var)
    key = (word if os.sep in word or cwd is None else f"{cwd}\0{word}", path_var)
    if key in _shebangs:
        return _shebangs[key]
    if os.sep in word:
        path: Optional[str] = os.path.join(os.fsdecode(cwd), word) if cwd else word
    else:
        import shutil

        path = shutil.which(word, path=path_var)
    text = _MISSING
    if path:
        try:
            with open(path, "rb") as handle:
                head = handle.read(512)
            text = ""
            if head.startswith(b"#!"):
                text = "\n".join(head.decode("utf-8", "replace").splitlines()[:2])
        except OSError:
            pass
    if len(_shebangs) < 256:
        _shebangs[key] = text
    return text


def unguarded(words: list[str], env: Any = None, cwd: Any = None) -> Optional[str]:
    """Why the child that runs ``words`` will not load the guards, or None when it will."""
    if not words:
        return None
    program = words[0]
    name = os.path.basename(program.replace("\\", "/"))
    name = name[:-4] if name.lower().endswith(".exe") else name
    if is_python_name(name):
        flags = python_flags(words[1:])
    else:
        shebang = _shebang(program, env, cwd)
        if shebang == _MISSING:
            return None  # the start fails: nothing runs unguarded
        if "python" not in shebang:
            return NOT_PYTHON
        first = shebang.splitlines()[0][2:].split()
        # ``#!/usr/bin/python3 -I`` or ``#!/usr/bin/env python3 -E``: the options that follow
        rest = first[2:] if first and os.path.basename(first[0]) == "env" else first[1:]
        flags = python_flags(rest)
    for letter, reason in _FLAGS.items():
        if letter in flags:
            return reason
    return None
