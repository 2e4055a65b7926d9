"""The process seal: the whole pytest process runs sealed, from before the first conftest.

Code that runs before any test sees the process's environment: a module that copies
``os.environ`` at import and hands the copy to every ``git`` it starts, a cache directory
computed from ``~`` at import, a conftest, a plugin's ``pytest_configure``, a session fixture
that builds a template repository. Sealing each test would leave all of them the developer's
machine: their identity, gpg signing and colour, their caches and rc files. So as the plugin
loads, before pytest imports the first conftest, the process gets the session's seal: a fresh
session home (with its XDG directories) in the system's temporary directory, git configuration
at the null device, credentials and declared variables removed, the fixed zone, locale and
terminal. The per-test layer (``plugin/hermetic.py``) goes on top of it for every test.

What the process changes after this point (a conftest that sets a variable, a session fixture
that removes ``TZ`` or points ``HOME`` elsewhere) is the suite's own decision: the per-test
layer leaves it as it is. truegreen's own ``TRUEGREEN_*`` settings stay in the process (xdist
workers and every later reader see the same configuration) and are removed per test.

At ``pytest_unconfigure`` the process gets its environment back exactly, and the session
home is removed: an in-process run (``pytest.main``, pytester's inline runs) leaves nothing.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from typing import TYPE_CHECKING, Any, Optional

import pytest

from truegreen.core.config import Config
from truegreen.core.protocol import SESSION_DIR_PREFIX
from truegreen.plugin.listing import HooksOnly
from truegreen.plugin.stash import MACHINE_ENV_KEY, REAL_HOME_KEY

if TYPE_CHECKING:  # imported where the seal is applied: it costs at start-up
    from truegreen.core.hermetic import Seal

# What the controller tells each xdist worker: the machine's home and environment, which the
# worker cannot see for itself (it starts in the controller's sealed environment).
WORKER_INPUT = "truegreen_machine"
# The seal on the whole process, when it is on: this feature's own key.
SESSION_SEAL_KEY = pytest.StashKey["SessionSeal"]()


def seal_process(config: pytest.Config, settings: Config) -> None:
    """Seal the process when the plugin is on and the hermetic environment is."""
    if settings.enabled and settings.hermetic:
        SessionSeal.apply(config, settings)


class SessionSeal(HooksOnly):
    """The seal on the whole process: applied once, undone exactly at the end."""

    def __init__(self, machine: dict[str, str], real_home: str) -> None:
        self.started = machine  # the environment as this process found it: put back at the end
        self.machine = machine  # the developer's: for tests marked to run unsealed
        self.real_home = real_home
        self.directory: Optional[str] = None  # holds the session home, removed at the end
        self.home = ""
        self.removed: tuple[str, ...] = ()  # names of the machine's variables removed
        self.set: tuple[str, ...] = ()  # names set
        self.sealed: dict[str, str] = {}  # the environment right after the seal
        self.rules: Optional[Seal] = None  # what the seal clears and sets, for the per-test layer

    @classmethod
    def apply(cls, config: pytest.Config, settings: Config) -> SessionSeal:
        """Seal ``os.environ`` for the rest of the process and register the undoing."""
        from truegreen.core.hermetic import OWN_PREFIXES, seal_for

        environ = os.environ
        # the environment as the process found it, taken once as the plugin loaded
        seal = cls(config.stash[MACHINE_ENV_KEY], config.stash[REAL_HOME_KEY])
        seal.directory = tempfile.mkdtemp(prefix=f"{SESSION_DIR_PREFIX}{os.getpid()}-")
        seal.home = os.path.join(seal.directory, "home")
        tmp = os.path.join(seal.directory, "tmp")
        os.mkdir(seal.home)
        os.mkdir(tmp)
        rules = seal.rules = seal_for(settings, devnull=os.devnull, windows=sys.platform == "win32")
        removed = [n for n in rules.removed(environ) if not n.startswith(OWN_PREFIXES)]
        for name in removed:
            del environ[name]
        values = rules.assignments(home=seal.home, tmp=tmp)
        changed = [name for name, value in values.items() if environ.get(name) != value]
        environ.update(values)
        seal.removed = tuple(sorted(removed))
        seal.set = tuple(sorted(values))
        seal.sealed = dict(environ)
        if "TZ" in changed or ("TZ" in seal.machine) != ("TZ" in environ):
            _tzset()
        config.stash[SESSION_SEAL_KEY] = seal
        config.pluginmanager.register(seal, "truegreen-session-seal")
        return seal

    def adopt(self, workerinput: Any) -> bool:
        """On an xdist worker: the machine is the controller's, not this process's. Whether
        the controller said so."""
        machine = workerinput.get(WORKER_INPUT) if isinstance(workerinput, dict) else None
        if not isinstance(machine, dict) or "home" not in machine:
            return False
        self.real_home = str(machine["home"])
        self.machine = dict(machine["environ"])
        # What this worker's own seal removed and the machine never set (xdist's start of a
        # worker adds COLUMNS and LINES) is not the machine's.
        removed = {*self.removed, *machine.get("removed", ())}
        self.removed = tuple(sorted(name for name in removed if name in self.machine))
        return True

    # -- hooks ------------------------------------------------------------------

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """xdist's controller, for each worker it starts."""
        node.workerinput[WORKER_INPUT] = {
            "home": self.real_home,
            "environ": self.machine,
            "removed": list(self.removed),
        }

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self) -> None:
        environ = os.environ
        zone = environ.get("TZ")
        for name in [name for name in environ if name not in self.started]:
            del environ[name]
        for name, value in self.started.items():
            if environ.get(name) != value:
                environ[name] = value
        if environ.get("TZ") != zone:
            _tzset()
        directory, self.directory = self.directory, None
        if directory is not None:
            shutil.rmtree(directory, ignore_errors=True)


def _tzset() -> None:
    if hasattr(time, "tzset"):
        time.tzset()
