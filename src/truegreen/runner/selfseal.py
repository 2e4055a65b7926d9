"""``truegreen run`` sealed itself: the runner is the parent of the pytest it starts, and a
process's environment as it started stays readable in ``/proc/<pid>/environ`` (and, on macOS,
to ``ps -E``) whatever it later removes from ``os.environ``. Before it does anything else the
runner replaces itself (``execve``) with the same command in an environment that holds only
what it hands on to pytest and what it needs to import itself, so the environment it was
given is nowhere in its tree."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence

from truegreen.core.config import ENV_PREFIX
from truegreen.core.protocol import REAL_HOME_VAR
from truegreen.guards.mutant import MUTANT_VAR
from truegreen.runner.procs import ALLOWED

# Set in the replacing process: it is sealed, do not replace it again. Not a TRUEGREEN_*
# setting, so the pytest it starts does not inherit it.
SEALED_VAR = "_TRUEGREEN_RUNNER_SEALED"
# What the runner needs for itself (to import the same truegreen, to print): never secrets,
# and the pytest it starts does not get them (its environment is decided again).
RUNNER_NEEDS = ("PYTHONPATH", "PYTHONHOME", "LANG", "LC_ALL", "LC_CTYPE")


def runner_environment(environ: Mapping[str, str], keep: Sequence[str] = ()) -> dict[str, str]:
    """The runner's own environment: what :func:`sealed_environment` reads from it to seal
    pytest (the allowlist, ``keep``, ``TRUEGREEN_*``, the mutant, the real home) and
    :data:`RUNNER_NEEDS`."""
    names = (*ALLOWED, *keep, *RUNNER_NEEDS)
    env = {name: environ[name] for name in names if name in environ}
    env.update({n: v for n, v in environ.items() if n.startswith(ENV_PREFIX) or n == MUTANT_VAR})
    real_home = environ.get(REAL_HOME_VAR) or environ.get("HOME")
    if real_home:
        env[REAL_HOME_VAR] = real_home
    env[SEALED_VAR] = "1"
    return env


def reexec_sealed(keep: Sequence[str]) -> None:
    """Replace this process with ``python -m truegreen <the same arguments>`` in
    :func:`runner_environment`; return only where that cannot be done (Windows, where exec
    starts another process; the verb called in-process, not as a command; an exec that
    fails), and then the run goes on in the environment it has."""
    if os.name != "posix" or os.environ.get(SEALED_VAR) or sys.argv[1:2] != ["run"]:
        return
    env = runner_environment(os.environ, keep)
    argv = [sys.executable, "-m", "truegreen", *sys.argv[1:]]
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execve(sys.executable, argv, env)
    except OSError:
        return
