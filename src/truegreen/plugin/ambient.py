"""Ambient reads: variables a test read that the developer's machine set and nothing sealed.

Each is a lead for ``clear-env`` (a variable the application reads is a configuration
layer, so a shell can fail tests that pass in CI). Names only, never values.
"""

from __future__ import annotations

import os
from collections import defaultdict, deque
from collections.abc import Iterator
from typing import Any, Callable, Optional

import pytest

from truegreen.core.config import Config
from truegreen.guards.hook import muted
from truegreen.plugin.listing import HooksOnly
from truegreen.plugin.relay import relay
from truegreen.plugin.stash import AMBIENT_KEY, METRICS_EMIT_KEY, SEAL_KEY, env_watch, per_test

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
# Left out of the event stream's records too: the interpreter's own (sysconfig, site, read
# when a test is the first to import them) and the home, which every ``Path.home()`` reads.
_UNRECORDED = ("PYTHON", "_PYTHON", "HOME", "USERPROFILE")
_ENVIRON: Any = os.environ  # read through its encoded ``_data``, as _Environ itself does


class AmbientReads(HooksOnly):
    """Records the names a test reads from ``os.environ`` while it runs."""

    def __init__(self, config: pytest.Config, settings: Config, ambient: frozenset[str]) -> None:
        self.config = config
        self.keep = frozenset(settings.keep_env)
        self.ambient = ambient
        self.reads: Optional[set[str]] = None
        # Shared with the failure hints through the stash: the names they watch while a test
        # is sealed (cleared, or set by the seal), and which of them it asked for.
        self.watch = env_watch(config)
        self.found: dict[str, list[str]] = defaultdict(list)  # name -> tests
        # The names an iteration of os.environ has yielded and nobody has read yet, in order:
        # a copy (dict(os.environ), .copy(), .items(), ==) reads each of them in that order.
        self.copying: deque[str] = deque()
        # The last name read, until the next is or the test sets or deletes it: see settle.
        self.pending: Optional[str] = None
        self._saved: dict[str, Callable[..., Any]] = {}
        self.relay = relay(config)
        self.emit: Optional[Callable[..., None]] = None  # the event stream's, with the metrics
        # With the metrics on, the names a test asked for and found unset (its default taken):
        # not leads (the machine did not set them), but the stream records them with the rest.
        self.absent: Optional[set[str]] = None
        self._lead_seal: Any = None  # the seal the answers in ``_lead`` were given under
        self._lead: dict[str, bool] = {}

    @classmethod
    def register(cls, config: pytest.Config, settings: Config) -> None:
        plugin = cls(config, settings, config.stash.get(AMBIENT_KEY, frozenset(os.environ)))
        config.pluginmanager.register(plugin, "truegreen-ambient-reads")
        per_test(config).add("ambient", plugin)
        plugin.relay.listen("ambient", plugin.take)

    def pytest_sessionstart(self) -> None:
        self.emit = self.config.stash.get(METRICS_EMIT_KEY, None)
        environ_class = os._Environ
        original = environ_class.__getitem__
        original_iter = environ_class.__iter__
        original_set = environ_class.__setitem__
        original_del = environ_class.__delitem__
        plugin = self
        watch = self.watch

        def __getitem__(environ: Any, key: str) -> str:
            # truegreen's own reads (the guards' git identity check) are not the test's
            if environ is not _ENVIRON or muted():
                found: str = original(environ, key)
                return found
            raw_key = environ.encodekey(key)
            try:
                raw = environ._data[raw_key]
            except KeyError:
                if key in watch.names:
                    watch.note(key, False)
                absent = plugin.absent
                if absent is not None:
                    absent.add(key)
                raise KeyError(key) from None
            copying = plugin.copying
            # a copy of the whole environment (next in line to be read) depends on no variable
            copied = bool(copying and copying[0] == key)
            names = watch.names
            if key in names and not copied:
                watch.note(key, True)
            reads = plugin.reads
            if reads is not None:
                if copied:
                    copying.popleft()  # copying the whole environment depends on no variable
                else:
                    pending = plugin.pending
                    if pending is not None and pending != key:
                        plugin.settle()  # ``name in os.environ`` then ``.get(name)``: one read
                    plugin.pending = key
            value: str = environ.decodevalue(raw)
            return value

        def __iter__(environ: Any) -> Iterator[str]:
            if plugin.reads is None or environ is not _ENVIRON:
                yield from original_iter(environ)
                return
            copying = plugin.copying = deque()
            for key in original_iter(environ):
                copying.append(key)
                yield key

        def __setitem__(environ: Any, key: str, value: str) -> None:
            original_set(environ, key, value)
            plugin.written(environ, key)

        def __delitem__(environ: Any, key: str) -> None:
            original_del(environ, key)
            plugin.written(environ, key)

        self._saved = {
            "__getitem__": original,
            "__iter__": original_iter,
            "__setitem__": original_set,
            "__delitem__": original_del,
        }
        for patched in (__getitem__, __iter__, __setitem__, __delitem__):
            setattr(environ_class, patched.__name__, patched)

    def written(self, environ: Any, key: str) -> None:
        """The test set or deleted ``key``: if it was the last name read, it was read to be
        restored (``monkeypatch.setenv``, click's ``CliRunner`` saving the old value,
        ``os.environ.pop``), not depended on. A hook on the write, not a test of the value
        object: CPython shares one object for every one-byte value, so setting ``"1"`` over
        ``"1"`` stores the very same object."""
        if environ is _ENVIRON and self.pending == key:
            self.pending = None

    def settle(self) -> None:
        """Judge the last name read, now that the test has read another or ended: not set or
        deleted since (see ``written``), it was depended on."""
        pending = self.pending
        if pending is None or self.reads is None:
            return
        self.pending = None
        self.reads.add(pending)

    def pytest_sessionfinish(self) -> None:
        self.relay.ship("ambient", {name: list(tests) for name, tests in self.found.items()})

    def take(self, data: dict[str, list[str]]) -> None:
        """On the xdist controller: the names one worker's tests read."""
        for name, tests in data.items():
            self.found[name].extend(tests)

    def pytest_unconfigure(self) -> None:
        for name, original in self._saved.items():
            setattr(os._Environ, name, original)
        self._saved = {}

    def _leads(self, names: set[str]) -> list[str]:
        seal = self.config.stash.get(SEAL_KEY, None)
        if seal is not self._lead_seal:  # each name's answer holds as long as the seal does
            self._lead_seal, self._lead = seal, {}
        decided = self._lead
        leads = []
        for name in names:
            lead = decided.get(name)
            if lead is None:
                lead = decided[name] = self._is_lead(name, seal)
            if lead:
                leads.append(name)
        return sorted(leads)

    def _is_lead(self, name: str, seal: Any) -> bool:
        """Whether a test's read of ``name`` is a lead: set on this machine, not kept, not
        sealed, nothing every machine has."""
        if name not in self.ambient or name in self.keep:
            return False
        if name in ORDINARY or name.startswith(_PREFIXES):
            return False
        if seal is None:
            return True
        if any(name == n for n, _ in seal.fixed) or any(name == n for n, _ in seal.templated):
            return False
        return seal.reason(name) is None

    # Not hooks: the per-test fan-out calls these (plugin/fanout.py).

    def on_logstart(self, nodeid: str) -> None:
        """A test starts: record what it reads."""
        self.reads = set()
        self.copying = deque()
        self.pending = None
        if self.emit is not None:
            self.absent = set()

    def on_logfinish(self, nodeid: str) -> None:
        """The test is over: keep its reads of ambient variables as leads."""
        self.settle()
        reads, self.reads = self.reads, None
        if reads:
            for name in self._leads(reads):
                self.found[name].append(nodeid)
        absent, self.absent = self.absent, None
        if self.emit is not None and (reads or absent):
            asked = (reads or set()) | (absent or set())
            names = [
                n for n in asked
                if n not in ORDINARY and not n.startswith(_PREFIXES)
                and not n.startswith(_UNRECORDED)
            ]  # fmt: skip
            if names:
                from truegreen.core import events

                self.emit(events.ENV_READS, test=nodeid, names=sorted(names))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.found:
            return
        tr = terminalreporter
        tr.write_sep("-", "truegreen ambient reads")
        tr.write_line(
            "tests read these variables, set on this machine and not sealed (names only); "
            "declare them in clear-env, or set them inside the test:"
        )
        for name, found in sorted(self.found.items()):
            tests = self.relay.ordered(found)
            shown = ", ".join(tests[:3]) + (f", ... ({len(tests)} tests)" if len(tests) > 3 else "")
            tr.write_line(f"  {name}: {shown}")
