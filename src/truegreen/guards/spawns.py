"""The subprocess guard: every program a test starts, by name (and git's verb); some denied."""

from __future__ import annotations

import os

from truegreen.guards.errors import ProgramDenied
from truegreen.guards.runtime import Guard

TYPE_CHECKING = False  # typing itself is too dear for a child's start-up
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Optional

    from truegreen.guards.hook import Listener

_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "cmd", "cmd.exe"})
# git options that take a separate value before the verb.
_GIT_VALUED = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"})


def basename(program: Any) -> str:
    """``/usr/bin/git`` -> ``git``; ``C:\\Tools\\docker.exe`` -> ``docker`` (on any OS)."""
    if not program:
        return "?"
    name = os.fsdecode(os.fspath(program)).replace("\\", "/").rsplit("/", 1)[-1]
    return name[:-4] if name.lower().endswith(".exe") else name


def git_verb(args: Sequence[str]) -> Optional[str]:
    """The verb of a git command line (``git -C x --no-pager log`` -> ``log``)."""
    rest = iter(args[1:])
    for arg in rest:
        if arg in _GIT_VALUED:
            next(rest, None)
        elif not arg.startswith("-"):
            return arg
    return None


def _words(args: Any) -> list[str]:
    if isinstance(args, (str, bytes)):
        import shlex

        text = os.fsdecode(args)
        try:
            return shlex.split(text)
        except ValueError:
            return text.split()
    if isinstance(args, os.PathLike):
        return [os.fsdecode(os.fspath(args))]
    return [
        os.fsdecode(os.fspath(a)) if isinstance(a, (bytes, os.PathLike)) else str(a)
        for a in (args or ())
    ]


def program_of(executable: Any, args: Any) -> tuple[str, Optional[str]]:
    """(basename, git verb) of what a spawn really runs, looking through ``sh -c`` and ``env``."""
    words = _words(args)
    if executable is not None and (not words or basename(executable) not in _SHELLS):
        words = [os.fsdecode(os.fspath(executable)), *words[1:]]
    for _ in range(3):
        if not words:
            return "?", None
        name = basename(words[0])
        if name in _SHELLS and "-c" in words[1:]:
            index = words.index("-c")
            words = _words(words[index + 1]) if index + 1 < len(words) else []
        elif name == "env":
            words = [w for w in words[1:] if "=" not in w and not w.startswith("-")]
        else:
            break
    name = basename(words[0]) if words else "?"
    return name, git_verb(words) if name == "git" else None


def listeners(guard: Guard) -> dict[str, Listener]:
    """The audit events of the subprocess guard, bound to ``guard``."""
    denied = guard.policy.deny_programs

    def spawn(executable: Any, args: Any) -> None:
        if guard.where is None:
            return
        program, verb = program_of(executable, args)
        if program in denied:
            violation = guard.report("program", "start", program, blocked=True)
            raise ProgramDenied(
                f"truegreen: {violation.where} may not start {program!r}: it is in "
                "deny-programs in [tool.truegreen]. Use a test double for it"
            )
        guard.record_spawn(program, verb)

    return {
        "subprocess.Popen": lambda a: spawn(a[0], a[1]),
        "os.system": lambda a: spawn(None, a[0]),
        "os.exec": lambda a: spawn(a[0], a[1]),
        "os.posix_spawn": lambda a: spawn(a[0], a[1]),
        "os.spawn": lambda a: spawn(a[1], a[2]),
        "os.startfile": lambda a: spawn(a[0], [a[0]]),
        "os.fork": lambda a: _forked(guard),
        "os.forkpty": lambda a: _forked(guard),
    }


def _forked(guard: Guard) -> None:
    if guard.where is not None:
        guard.spawned = True
