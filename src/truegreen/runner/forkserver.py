"""A fork server for ``truegreen run --isolate-files``: start pytest once, fork a process per file.

The server starts in the sealed environment and imports pytest, its builtin plugins and
the installed ``pytest11`` plugins, and nothing of the user's (no conftest, no test
module). For each file the controller asks for, it forks a child that becomes what
``python -m pytest ARGS`` would have been: a session of its own, its output in a file of
its own, ``sys.argv``, ``__main__``, the working directory and the signal handlers of a
fresh process, the server's ``atexit`` handlers dropped and its own run, and
``os._exit`` at the end so nothing of the server's is flushed or run twice. A fork of a
server that never imported user code shares no module state between files.

The controller and the server speak JSON lines over the server's stdin and stdout: the
controller sends ``{"id", "args", "output", "cwd"}`` (and ``"env"`` for a child whose
environment differs from the server's); the server answers ``{"id", "pid"}`` when the child
exists and ``{"id", "status"}`` when it has ended. Its first line names the files of the
modules it imported, which no child can import afresh (``truegreen ablate --warm``). The
server has one thread (a fork copies only the calling thread); it waits on its input and
on ``SIGCHLD`` through a wake-up pipe. The controller's side is
:mod:`truegreen.runner.forkclient`.
"""

from __future__ import annotations

import atexit
import importlib
import json
import os
import select
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any, Optional

from truegreen.core.protocol import PLUGIN_MODULES
from truegreen.guards import parent
from truegreen.guards.policy import RUN_VAR
from truegreen.runner.forkchild import Avoid, Avoided, environ, loaded_files

# What a builtin plugin of pytest imports in every session, unless ``-p no:debugging``: the
# debugging plugin imports pdb (and with it code, cmd, bdb) when it configures.
PYTEST_MODULES = ("pdb",)
AUDIT_HOOK_MARK = "_truegreen_audit_hook"  # set on sys by truegreen.guards.hook.install


def available() -> bool:
    """Whether this platform can fork (POSIX); elsewhere a process is started per file."""
    return hasattr(os, "fork") and hasattr(signal, "SIGCHLD") and sys.platform != "win32"


def server_options(pytest_args: Sequence[str], avoid: Sequence[str] = ()) -> dict[str, Any]:
    """What the server must leave alone: the plugins ``-p no:NAME`` turns off, every
    installed plugin when autoloading is off (the variable or ``--disable-plugin-autoload``),
    and the files in ``avoid``, with every plugin module that imports one."""
    names: set[str] = set()
    for i, word in enumerate(pytest_args):
        value = None
        if word == "-p" and i + 1 < len(pytest_args):
            value = pytest_args[i + 1]
        elif word.startswith("-p") and word != "-p":
            value = word[2:]
        if value is not None and value.startswith("no:"):
            names.add(value[3:])
    autoload = "--disable-plugin-autoload" not in pytest_args
    options: dict[str, Any] = {"skip": sorted(names), "autoload": autoload}
    if avoid:
        options["avoid"] = sorted(os.path.realpath(path) for path in avoid)
    return options


# -- the server ---------------------------------------------------------------------------

# The server's first lines. pytest marks the packages of installed plugins for assertion
# rewriting and warns about any already imported, so the rewriter goes in first, as in a
# pytest run, and truegreen itself is imported through it. (An ablation's mutant, served by
# an import hook, goes in front of it, as the plugin puts it in front in every pytest run.)
SERVE = """\
import json, os, sys
from _pytest.assertion import install_importhook
from _pytest.config import get_config
options = json.loads(sys.argv[1])
options["autoload"] = options["autoload"] and not os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
config = get_config()
if not hasattr(type(config), "inicfg"):  # pytest < 9 reads the ini's values before parsing
    config.inicfg = {}
mark = config._mark_plugins_for_rewrite
hook = install_importhook(config)
if mark.__code__.co_argcount == 3:
    mark(hook, not options["autoload"])
else:  # pytest before 8.4 reads PYTEST_DISABLE_PLUGIN_AUTOLOAD itself
    mark(hook)
if "truegreen.guards.mutant" in sys.modules:
    sys.modules["truegreen.guards.mutant"].to_front()
from truegreen.runner.forkserver import serve
sys.exit(serve(config, options))
"""


def preload(config: Any, options: dict[str, Any]) -> None:
    """Import the installed plugins while pytest's assertion rewriter is on, as a run would;
    then take the rewriter off again. ``config`` is a bare pytest Config, which has imported
    pytest's builtin plugins, read no file and parsed no argument.

    A plugin is its entry point's module and the packages of its distribution (the names
    pytest marks for rewriting): plugins import their own package lazily, in a hook, and
    every run pays for that import again (Hypothesis's, at the end of every session).
    """
    avoid = Avoid(options.get("avoid", ()))
    sys.meta_path.insert(0, avoid)
    try:
        if "debugging" not in options["skip"]:
            for module in PYTEST_MODULES:
                _try_import(module)
        if not options["autoload"]:
            return
        from importlib import metadata

        from _pytest.config import _iter_rewritable_modules

        skip = set(options["skip"])
        for dist in metadata.distributions():
            entries = [e for e in dist.entry_points if e.group == "pytest11"]
            if not entries or any(e.name in skip for e in entries):
                continue
            for entry in entries:
                _try_import(entry.value.partition(":")[0].strip())
            for name in _iter_rewritable_modules(str(f) for f in dist.files or ()):
                _try_import(name)
        if "truegreen" not in skip:
            for module in PLUGIN_MODULES:
                _try_import(module)
    finally:
        sys.meta_path.remove(avoid)
        config._ensure_unconfigure()


def _try_import(module: str) -> None:
    try:
        importlib.import_module(module)
    except (Exception, Avoided):  # the child imports it again, and reports an error as pytest would
        sys.modules.pop(module, None)


def refusal() -> Optional[str]:
    """Why this process must not fork children for pytest, or None."""
    if threading.active_count() != 1:
        return f"a plugin started a thread at import ({threading.active_count()} threads)"
    if getattr(sys, AUDIT_HOOK_MARK, None) is not None and not os.environ.get(RUN_VAR):
        # A plugin installed it. One the shim installed (the server was started by a test of
        # a guarded run) guards every new process the same way, so a fork changes nothing.
        return "truegreen's audit hook was installed at import"
    return None


def _send(message: dict[str, Any]) -> None:
    data = (json.dumps(message) + "\n").encode()
    while data:
        data = data[os.write(1, data) :]


def serve(config: Any, options: dict[str, Any]) -> int:
    """The server's loop: fork a child per request, report its pid and its exit status."""
    preload(config, options)
    why = refusal()
    _send({"ready": why is None, "why": why, "loaded": loaded_files()})
    if why is not None:
        return 1
    import gc

    gc.freeze()  # the server's objects stay out of every child's collections
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the controller decides when we end
    children: dict[int, int] = {}
    pending = b""
    reading = True
    while reading or children:
        watched = [0, wake_r] if reading else [wake_r]
        ready, _, _ = select.select(watched, [], [])
        if wake_r in ready:
            _drain(wake_r)
        _reap(children)
        if 0 in ready:
            chunk = os.read(0, 65536)
            reading = bool(chunk)
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                request = json.loads(line)
                pid = _fork(request, (wake_r, wake_w))
                children[pid] = request["id"]
                _send({"id": request["id"], "pid": pid})
    return 0


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 4096):
            continue
    except BlockingIOError:
        return


def _reap(children: dict[int, int]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        number = children.pop(pid, None)
        if number is not None:
            _send({"id": number, "status": os.waitstatus_to_exitcode(status)})


def _fork(request: dict[str, Any], wake: tuple[int, int]) -> int:
    sys.stdout.flush()
    sys.stderr.flush()
    server = os.getpid()
    pid = os.fork()
    if pid:
        return pid
    status = 70  # EX_SOFTWARE: the child failed before pytest could say anything
    try:
        status = _child(request, wake, server)
    except BaseException:  # never return into the server's loop
        with open(2, "w", closefd=False) as err:
            import traceback

            traceback.print_exc(file=err)
    finally:
        os._exit(status)


def _child(request: dict[str, Any], wake: tuple[int, int], server: int) -> int:
    """In the forked child: become ``python -m pytest ARGS``, run it, and return its status."""
    os.setsid()
    if parent.armed():  # the server dies with its parent: its children die with the server
        parent.die_with(server)
    signal.set_wakeup_fd(-1)
    for fd in wake:
        os.close(fd)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    output = os.open(request["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(output, 1)
    os.dup2(output, 2)
    os.close(output)
    os.close(null)
    os.chdir(request["cwd"])
    if "env" in request:
        environ(request["env"])
    atexit._clear()  # the server's handlers are the server's
    if "logging" in sys.modules:  # registered when pytest imported logging, as in any run
        atexit.register(sys.modules["logging"].shutdown)
    _as_main(request["args"])
    import pytest

    try:
        status = int(pytest.console_main())
    except SystemExit as exc:
        status = _exit_code(exc.code)
    except BaseException:
        import traceback

        traceback.print_exc()
        status = 1
    threading_module: Any = sys.modules.get("threading")
    if threading_module is not None:
        threading_module._shutdown()  # non-daemon threads are joined, as at a normal exit
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            continue
    return status


def _as_main(args: Sequence[str]) -> None:
    """``sys.argv`` and ``__main__`` as ``python -m pytest ARGS`` has them."""
    import importlib.util
    import types

    spec = importlib.util.find_spec("pytest.__main__")
    main = types.ModuleType("__main__")
    main.__spec__ = spec
    main.__file__ = spec.origin if spec else None
    main.__package__ = "pytest"
    main.__loader__ = spec.loader if spec else None
    sys.modules["__main__"] = main
    sys.argv = [main.__file__ or "pytest", *args]
    if sys.path and sys.path[0] == "":  # -c puts the working directory there as ""; -m, in full
        sys.path[0] = os.getcwd()


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1
