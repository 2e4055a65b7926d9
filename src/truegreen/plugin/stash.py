"""Typed keys for the state that crosses hooks and features, kept in ``config.stash``.

What one feature hands another travels here (or through the per-test fan-out), never as an
attribute one plugin object sets on another. Every value's type lives in ``core/``,
``guards/`` or a neutral module of ``plugin/``, so this module imports no feature.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Callable

import pytest

from truegreen.core.config import Config

if TYPE_CHECKING:  # imported where they are used: this module is imported at start-up
    from truegreen.core.hermetic import Seal
    from truegreen.guards.runtime import Guard
    from truegreen.plugin.fanout import PerTest

CONFIG_KEY = pytest.StashKey[Config]()
# The developer's real home: HOME as the process found it, before the process seal replaced it.
REAL_HOME_KEY = pytest.StashKey[str]()
# The environment as the process found it, before the process seal (on an xdist worker, as its
# controller found it): what truegreen's own git must see of the developer's configuration.
MACHINE_ENV_KEY = pytest.StashKey[dict[str, str]]()
# The names of the variables the machine set: the environment before any conftest ran.
AMBIENT_KEY = pytest.StashKey[frozenset[str]]()
# Node ids this shard left to the other shards: not deselected by the user, not missing.
SHARDED_OUT_KEY = pytest.StashKey[set[str]]()
# The hermetic environment's seal, set when it is on: what it clears and sets, and why.
SEAL_KEY: pytest.StashKey[Seal] = pytest.StashKey()
# The guards' runtime object, set as the session starts when the guards are on.
GUARD_KEY: pytest.StashKey[Guard] = pytest.StashKey()
# Whether a feature wants the guard to note reads under a sealed home (the failure hints):
# without one, no read is listened to when the write guard is off.
NOTE_READS_KEY = pytest.StashKey[bool]()
PER_TEST_KEY: pytest.StashKey[PerTest] = pytest.StashKey()
# The directory this run's event stream goes to (``DIR/<run id>``), set when the metrics are
# on: the guards keep their children's files under it.
METRICS_RUN_DIR_KEY = pytest.StashKey[str]()
# Adds a record to this process's event stream (``emit(kind, **fields)``), set when the
# metrics are on: the ambient reads record each test's variable names through it.
METRICS_EMIT_KEY = pytest.StashKey[Callable[..., None]]()
ENV_WATCH_KEY = pytest.StashKey["EnvWatch"]()


class EnvWatch:
    """Watched variables a sealed test asked for. The failure hints set ``names`` from a test's
    seal to its unseal (and ``passing`` and ``ignored`` once); the ambient-reads patch of
    ``os.environ`` hands :meth:`note` each of them it is asked for, which adds it to ``hits`` if
    it was there and to ``misses`` if not, unless it was asked on no test's behalf: the first
    frame that asked, past those in ``passing`` (``os.getenv``, ``shutil.get_terminal_size``:
    helpers that ask for their caller), lives in a file under ``ignored`` (pytest's own,
    argparse's)."""

    __slots__ = ("hits", "ignored", "misses", "names", "passing")

    def __init__(self) -> None:
        self.names: frozenset[str] = frozenset()
        self.misses: set[str] = set()
        self.hits: set[str] = set()
        self.passing: frozenset[str] = MAPPING_FILES
        self.ignored: tuple[str, ...] = ()

    def note(self, name: str, found: bool) -> None:
        """``os.environ`` was asked for ``name`` (a watched name), by its caller's caller."""
        noted = self.hits if found else self.misses
        if name in noted:
            return  # once is enough: a loop that reads it pays no walk
        frame = sys._getframe(2)  # the caller of the patched __getitem__
        passing = self.passing
        while frame.f_code.co_filename in passing and frame.f_back is not None:
            frame = frame.f_back
        if frame.f_code.co_filename.startswith(self.ignored):
            return
        noted.add(name)


# Where os.environ's own methods live (``<frozen os>`` on CPython 3.11+): they ask for a name
# on their caller's behalf.
MAPPING_FILES = frozenset({os.getenv.__code__.co_filename, os._Environ.get.__code__.co_filename})


def per_test(config: pytest.Config) -> PerTest:
    """The session's per-test fan-out, made by whichever feature asks first."""
    found = config.stash.get(PER_TEST_KEY, None)
    if found is None:
        from truegreen.plugin.fanout import PerTest

        found = config.stash[PER_TEST_KEY] = PerTest(config.pluginmanager)
    return found


def real_home(config: pytest.Config) -> str:
    """The developer's real home (not the session's or a test's), as the process found it."""
    found = config.stash.get(REAL_HOME_KEY, None)
    return found if found is not None else os.path.expanduser("~")


def env_watch(config: pytest.Config) -> EnvWatch:
    """The session's :class:`EnvWatch`, made by whichever feature asks first."""
    found = config.stash.get(ENV_WATCH_KEY, None)
    if found is None:
        found = config.stash[ENV_WATCH_KEY] = EnvWatch()
    return found
