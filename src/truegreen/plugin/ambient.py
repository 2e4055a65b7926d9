"""Ambient reads: variables a test read that the developer's machine set and nothing sealed.

Each is a lead for ``clear-env`` (doctrine 000: a declared variable is a configuration
layer, so a shell can fail tests that pass in CI). Names only, never values.
"""

from __future__ import annotations

import os
from collections import defaultdict, deque
from collections.abc import Iterator
from typing import Any, Callable, Optional

import pytest

from truegreen.core.config import Config
from truegreen.plugin.stash import AMBIENT_KEY, HERMETIC_KEY

# Variables every process reads and no test result should hinge on.
ORDINARY = frozenset(
    {
        "PATH",
        "PATHEXT",
        "PWD",
        "OLDPWD",
        "SHELL",
        "SHLVL",
        "USER",
        "LOGNAME",
        "USERNAME",
        "HOSTNAME",
        "TMPDIR",
        "TEMP",
        "TMP",
        "SYSTEMROOT",
        "COMSPEC",
        "WINDIR",
        "PROGRAMDATA",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "LD_LIBRARY_PATH",
        "DYLD_LIBRARY_PATH",
        "PYTHONPATH",
        "PYTHONHOME",
        "PYTHONHASHSEED",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONUTF8",
        "PYTHONIOENCODING",
        "PYTHONWARNINGS",
        "PYTHONDEVMODE",
        "PYTHONBREAKPOINT",
        "PYTHONPYCACHEPREFIX",
        "_",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
    }
)
_PREFIXES = ("PYTEST_", "_TRUEGREEN_", "COV_CORE_", "HYPOTHESIS_")


class AmbientReads:
    """Records the names a test reads from ``os.environ`` while it runs."""

    def __init__(self, config: pytest.Config, settings: Config, ambient: frozenset[str]) -> None:
        self.config = config
        self.keep = frozenset(settings.keep_env)
        self.ambient = ambient
        self.reads: Optional[set[str]] = None
        # The failure hints: names the seal cleared for this test, and which of them it
        # asked for and did not find.
        self.watch: frozenset[str] = frozenset()
        self.misses: set[str] = set()
        self.found: dict[str, list[str]] = defaultdict(list)  # name -> tests
        # The names an iteration of os.environ has yielded and nobody has read yet, in order:
        # a copy (dict(os.environ), .copy(), .items(), ==) reads each of them in that order.
        self.copying: deque[str] = deque()
        self.pending: Optional[str] = None  # the last name read, until the next is
        self._saved: dict[str, Callable[..., Any]] = {}

    @classmethod
    def register(cls, config: pytest.Config, settings: Config) -> AmbientReads:
        plugin = cls(config, settings, config.stash.get(AMBIENT_KEY, frozenset(os.environ)))
        config.pluginmanager.register(plugin, "truegreen-ambient-reads")
        return plugin

    def pytest_sessionstart(self) -> None:
        environ_class = os._Environ
        original = environ_class.__getitem__
        original_iter = environ_class.__iter__
        original_set = environ_class.__setitem__
        original_del = environ_class.__delitem__
        plugin = self

        def __getitem__(environ: Any, key: str) -> str:
            try:
                value: str = original(environ, key)
            except KeyError:
                if key in plugin.watch and environ is os.environ:
                    plugin.misses.add(key)
                raise
            reads = plugin.reads
            if reads is not None and environ is os.environ:
                copying = plugin.copying
                if copying and copying[0] == key:
                    copying.popleft()  # copying the whole environment depends on no variable
                else:
                    pending = plugin.pending
                    if pending is not None and pending != key:
                        reads.add(pending)
                    plugin.pending = key
            return value

        def __iter__(environ: Any) -> Iterator[str]:
            if plugin.reads is None or environ is not os.environ:
                yield from original_iter(environ)
                return
            copying = plugin.copying = deque()
            for key in original_iter(environ):
                copying.append(key)
                yield key

        # A name read and then at once set or deleted was read to be restored later
        # (monkeypatch.setenv, click's CliRunner): the test sets it, it does not depend on it.
        def __setitem__(environ: Any, key: str, value: str) -> None:
            if plugin.pending == key and environ is os.environ:
                plugin.pending = None
            original_set(environ, key, value)

        def __delitem__(environ: Any, key: str) -> None:
            if environ is os.environ and plugin.pending == key:
                plugin.pending = None
            original_del(environ, key)

        self._saved = {
            "__getitem__": original,
            "__iter__": original_iter,
            "__setitem__": original_set,
            "__delitem__": original_del,
        }
        patches = (__getitem__, __iter__, __setitem__, __delitem__)
        for patched in patches:
            setattr(environ_class, patched.__name__, patched)

    def pytest_unconfigure(self) -> None:
        for name, original in self._saved.items():
            setattr(os._Environ, name, original)
        self._saved = {}

    def _leads(self, names: set[str]) -> list[str]:
        hermetic = self.config.stash.get(HERMETIC_KEY, None)
        sealed: set[str] = set()
        if hermetic is not None:
            sealed = {n for n, _ in hermetic.seal.fixed} | {n for n, _ in hermetic.seal.templated}
        leads = []
        for name in names:
            if name not in self.ambient or name in self.keep or name in sealed:
                continue
            if name in ORDINARY or name.startswith(_PREFIXES):
                continue
            if hermetic is not None and hermetic.seal.reason(name) is not None:
                continue
            leads.append(name)
        return sorted(leads)

    # Not hooks: the guards' own per-test hooks call these (one hook call fewer per phase).

    def start(self) -> None:
        """A test starts: record what it reads."""
        self.reads = set()
        self.copying = deque()
        self.pending = None

    def finish(self, nodeid: str) -> None:
        """The test is over: keep its reads of ambient variables as leads."""
        reads, self.reads = self.reads, None
        if reads is not None and self.pending is not None:
            reads.add(self.pending)
        if reads:
            for name in self._leads(reads):
                self.found[name].append(nodeid)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.found:
            return
        tr = terminalreporter
        tr.write_sep("-", "truegreen ambient reads")
        tr.write_line(
            "tests read these variables, set on this machine and not sealed (names only); "
            "declare them in clear-env, or set them inside the test:"
        )
        for name, tests in sorted(self.found.items()):
            shown = ", ".join(tests[:3]) + (f", ... ({len(tests)} tests)" if len(tests) > 3 else "")
            tr.write_line(f"  {name}: {shown}")
