"""The subprocess guard: every program a test starts, by name (and git's verb); some denied."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing itself is too dear for a child's start-up
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Optional

    from truegreen.guards.hook import Listener
    from truegreen.guards.runtime import Guard

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


def command_of(executable: Any, args: Any) -> list[str]:
    """The words of what a spawn really runs, looking through ``sh -c`` and ``env``."""
    words = _words(args)
    if executable is not None and (not words or basename(executable) not in _SHELLS):
        words = [os.fsdecode(os.fspath(executable)), *words[1:]]
    for _ in range(3):
        if not words:
            return []
        name = basename(words[0])
        if name in _SHELLS and "-c" in words[1:]:
            index = words.index("-c")
            words = _words(words[index + 1]) if index + 1 < len(words) else []
        elif name == "env":
            words = [w for w in words[1:] if "=" not in w and not w.startswith("-")]
        else:
            break
    return words


def program_of(executable: Any, args: Any) -> tuple[str, Optional[str]]:
    """(basename, git verb) of what a spawn really runs, looking through ``sh -c`` and ``env``."""
    words = command_of(executable, args)
    name = basename(words[0]) if words else "?"
    return name, git_verb(words) if name == "git" else None


def listeners(guard: Guard) -> dict[str, Listener]:
    """The audit events of the subprocess guard, bound to ``guard``."""
    denied = guard.policy.deny_programs

    def spawn(executable: Any, args: Any, env: Any = None, cwd: Any = None) -> None:
        if guard.where is None:
            return
        words = command_of(executable, args)
        program = basename(words[0]) if words else "?"
        if program in denied:
            violation = guard.report("program", "start", program, blocked=True)
            from truegreen.guards.errors import ProgramDenied

            raise ProgramDenied(
                f"truegreen: {violation.where} may not start {program!r}: it is in "
                "deny-programs in [tool.truegreen]. Use a test double for it"
            )
        if guard.network_mode != "allow":
            _reach(guard, program, words, env)
        verb, anonymous = None, False
        if program == "git":
            verb = git_verb(words)
            anonymous = _anonymous(words, env, cwd)
        guard.record_spawn(program, verb, anonymous)
        from truegreen.guards import children  # on the first spawn, not at a child's start-up

        run_dir = guard.policy.run_dir
        why = children.unguarded(words, env, cwd)
        if run_dir and (env is None or why != children.NOT_PYTHON):
            # A non-Python program keeps the environment it was given; a Python one, or
            # anything inheriting this process's, gets the shim whatever the test set.
            why = children.keep_shim(env, run_dir) or why
        if why is not None:
            guard.record_unguarded(program, why)

    def popen(executable: Any, args: Any, cwd: Any, env: Any) -> None:
        spawn(executable, args, env, cwd)
        if guard.on_popen is not None and guard.where is not None:
            guard.on_popen(guard.test, guard.where, _words(args))

    def posix_spawn(path: Any, argv: Any, env: Any) -> None:
        spawn(path, argv, env)
        if guard.on_spawn is not None and guard.where is not None:
            guard.on_spawn(guard.test, guard.where, _words(argv))

    def forked() -> None:
        _forked(guard)
        if guard.on_spawn is not None and guard.where is not None:
            # os.spawn* is os._spawnvef on POSIX: a fork, then an exec in the child.
            frame: Any = sys._getframe(2)
            for _ in range(4):
                if frame is None:
                    return
                if frame.f_code.co_name == "_spawnvef" and frame.f_globals is os.__dict__:
                    if frame.f_locals.get("mode") != getattr(os, "P_WAIT", 0):
                        guard.on_spawn(guard.test, guard.where, _words(frame.f_locals["args"]))
                    return
                frame = frame.f_back

    return {
        "subprocess.Popen": lambda a: popen(*a[:4]),
        "os.system": lambda a: spawn(None, a[0]),
        "os.exec": lambda a: spawn(a[0], a[1], a[2]),
        "os.posix_spawn": lambda a: posix_spawn(*a[:3]),
        "os.spawn": lambda a: spawn(a[1], a[2], a[3]),
        "os.startfile": lambda a: spawn(a[0], [a[0]]),
        "os.fork": lambda a: forked(),
        "os.forkpty": lambda a: _forked(guard),
    }


def _reach(guard: Guard, program: str, words: list[str], env: Any) -> None:
    """A program that will dial another machine: refused before it starts wherever the network
    guard would refuse the same connection from Python (every mode but ``allow``, and the
    hosts and markers that mode lets through), so no packet leaves."""
    from truegreen.guards import netprograms, network

    for host, port in netprograms.destinations(words, env):
        why = network.refusal(guard, host, port, "tcp")
        if why is None:
            continue
        target = f"{host}:{port}" if port is not None else host
        violation = guard.report(
            "network", f"start {program} to reach", f"{target} ({why})", blocked=True
        )
        from truegreen.guards.errors import NetworkBlocked

        raise NetworkBlocked(
            f"truegreen: {violation.where} may not start {program!r} to reach {target}: "
            f"{why} (network = {guard.network_mode!r}). To allow it deliberately: "
            f"{network.ALLOW_DOCS}"
        )


def _anonymous(words: list[str], env: Any, cwd: Any) -> bool:
    """Whether a git command needs an identity it lacks; never an error in the user's spawn."""
    from truegreen.guards.identity import anonymous

    try:
        return anonymous(words, env if hasattr(env, "get") else None, cwd)
    except Exception:  # a hint is advice: whatever went wrong, the program still starts
        return False


def _forked(guard: Guard) -> None:
    guard.before_fork()
    if guard.where is not None:
        guard.spawned = True
