"""The hermetic environment at run time: seal each test, undo it exactly, report what it did.

The whole process is sealed before the first conftest (``plugin/session.py``). On top of
that, per test: a fresh empty home, the session's :class:`~truegreen.core.hermetic.Seal`
applied to ``os.environ``, ``time.tzset()``, platformdirs redirected and the declared caches
reset. Afterwards ``os.environ`` is put back exactly as it was, including anything the test
changed by hand.

What changed between the process seal and the test (a conftest, a session or module fixture
that removed ``TZ``, set a variable or pointed ``HOME`` elsewhere) is the suite's decision:
the per-test layer only replaces a value that is still the process seal's.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections import Counter
from collections.abc import Generator
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

from truegreen import __version__
from truegreen.core.config import Config
from truegreen.core.hermetic import Seal, seal_for
from truegreen.core.words import counted
from truegreen.plugin.fanout import PerTest
from truegreen.plugin.homedirs import PlatformdirsRedirect
from truegreen.plugin.listing import HooksOnly
from truegreen.plugin.relay import Relay, relay
from truegreen.plugin.sealed import Hermetic
from truegreen.plugin.session import SESSION_SEAL_KEY, SessionSeal
from truegreen.plugin.stash import SEAL_KEY, per_test, real_home

AMBIENT_MARKER = "truegreen_ambient"
# The plugin, for its fixture (the test's current seal): this feature's own key.
HERMETIC_KEY = pytest.StashKey["HermeticPlugin"]()

_ENV = os.environ
# os.environ keeps its encoded form in ``_data``; copying and comparing it is a
# hundred times cheaper than ``dict(os.environ)``, which decodes every entry.
_DATA: Optional[dict[Any, Any]] = getattr(_ENV, "_data", None)
_decodekey: Callable[[Any], str] = getattr(_ENV, "decodekey", str)
_decodevalue: Callable[[Any], str] = getattr(_ENV, "decodevalue", str)
_SLUG = re.compile(r"[^\w.-]+")


_encodekey: Callable[[str], Any] = getattr(_ENV, "encodekey", str)
# pytest's own variable, rewritten at every phase of every test (and the guards' name of the
# running test for its child processes): never the seal's to compare or restore.
_PYTEST_CURRENT = _encodekey("PYTEST_CURRENT_TEST")
_TZ = _encodekey("TZ")
_HOME = _encodekey("HOME")


_encodevalue: Callable[[str], Any] = getattr(_ENV, "encodevalue", str)


def _put(raw_key: Any, raw_value: Any, name: str, value: str) -> None:
    """``os.environ[name] = value`` from already-encoded parts: what ``_Environ.__setitem__``
    does, without encoding again (the seal sets a dozen variables twice per test)."""
    if _DATA is None:
        _ENV[name] = value
    else:
        os.putenv(raw_key, raw_value)
        _DATA[raw_key] = raw_value


def _drop(raw_key: Any, name: str) -> None:
    """``del os.environ[name]`` from the encoded key."""
    if _DATA is None:
        del _ENV[name]
    else:
        os.unsetenv(raw_key)
        del _DATA[raw_key]


def _snapshot() -> dict[Any, Any]:
    data = _DATA.copy() if _DATA is not None else dict(_ENV)
    data.pop(_PYTEST_CURRENT, None)
    return data


def _unchanged(after: dict[Any, Any]) -> bool:
    """Whether ``os.environ`` equals ``after`` (a :func:`_snapshot`), without copying it."""
    if _DATA is None:
        return _snapshot() == after
    current = _DATA.get(_PYTEST_CURRENT)
    if current is None:
        return after == _DATA
    if len(_DATA) != len(after) + 1:
        return False
    after[_PYTEST_CURRENT] = current  # lent for one comparison in C
    try:
        return after == _DATA
    finally:
        del after[_PYTEST_CURRENT]


def _restore(before: dict[Any, Any]) -> None:
    """Make ``os.environ`` equal to ``before`` again, touching only what differs."""
    now = _snapshot()
    if now == before:
        return
    for raw in [raw for raw in now if raw not in before]:
        del _ENV[_decodekey(raw)]
    for raw, value in before.items():
        if now.get(raw) != value:
            _ENV[_decodekey(raw)] = _decodevalue(value)


def _tzset() -> None:
    if hasattr(time, "tzset"):
        time.tzset()


def _zone_is_utc() -> bool:
    """Whether this process already keeps UTC, so TZ=UTC changes nothing in it."""
    return "TZ" not in _ENV and time.timezone == 0 and time.altzone == 0 and not time.daylight


class HermeticPlugin(HooksOnly):
    """Seals every test; registered only when ``hermetic`` is on.

    The seal goes on just before the test's first function-scoped fixture is set up
    (or just before the test itself when it has none), after every wider-scoped
    fixture, exactly where an autouse fixture would put it but at a fraction of the
    cost. It comes off through a finalizer registered on the item at that moment,
    so it runs after the function-scoped fixtures are torn down and before any
    wider-scoped one is.
    """

    def __init__(
        self,
        settings: Config,
        seal: Seal,
        real_home: str,
        events: PerTest,
        session: Optional[SessionSeal] = None,
    ) -> None:
        self.settings = settings
        self.seal = seal
        self.session = session
        # The environment right after the process seal, encoded as os.environ keeps it; None
        # when the process was not sealed (the plugin was loaded after the first conftest).
        self.base: Optional[dict[Any, Any]] = None
        if session is not None:
            self.base = {_encodekey(k): _encodevalue(v) for k, v in session.sealed.items()}
            self.base.pop(_PYTEST_CURRENT, None)
        self.needs_tmp = any("{tmp}" in template for _, template in seal.templated)
        self.redirect = PlatformdirsRedirect(real_home)
        self.redirect.session = session.home if session is not None else None
        self.resetters: list[Callable[[], object]] = []
        self.homes: Optional[Path] = None
        self.sealed: set[str] = set()  # node ids: a rerun of a test is one test sealed
        self._sealed_elsewhere = 0  # on the xdist controller: the workers' counts
        self._session_removed = session.removed if session is not None else ()
        self.removed: Counter[str] = Counter(self._session_removed)
        self.ambient: list[str] = []
        self.current: Optional[Hermetic] = None
        # Told of each seal and unseal: the features that watch a test while it is sealed.
        self.events = events
        self._item: Optional[pytest.Item] = None
        self._next: Optional[pytest.Item] = None  # the item after the one running
        self._held: Optional[Hermetic] = None  # a seal left on between two tests
        self._unsealed: Optional[dict[Any, Any]] = None  # the environment an unsealed test left
        self._spare: Optional[Path] = None
        self._made = 0
        self._home_mode = 0
        self._assigned: tuple[object, list[tuple[str, str, Any, Any]]] = (None, [])
        self._decisions: dict[Any, Optional[str]] = {}
        self._counted: tuple[str, ...] = ()  # the ``cleared`` of the last seal counted
        self._tz_noop = _zone_is_utc() and settings.timezone in {"UTC", "UTC0"}
        self.relay: Optional[Relay] = None  # the xdist relay, once registered

    @classmethod
    def register(cls, config: pytest.Config, settings: Config) -> HermeticPlugin:
        session = config.stash.get(SESSION_SEAL_KEY, None)
        seal = session.rules if session is not None else None  # decided once for the process
        if seal is None:
            seal = seal_for(settings, devnull=os.devnull, windows=sys.platform == "win32")
        kind = cls
        if any("{tmp}" in template for _, template in seal.templated):
            kind = HermeticPluginWithTmp
        plugin = kind(settings, seal, real_home(config), per_test(config), session)
        config.stash[HERMETIC_KEY] = plugin
        config.stash[SEAL_KEY] = seal
        config.pluginmanager.register(plugin, "truegreen-hermetic")
        plugin.relay = relay(config)
        plugin.relay.listen("hermetic", plugin.take)
        return plugin

    # -- per test ---------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_fixture_setup(self, fixturedef: Any, request: pytest.FixtureRequest) -> None:
        # A plain hook, not a wrapper: it runs for every fixture of every test.
        if fixturedef.scope == "function":
            if self._item is not request.node:
                self._enter(request.node)
        elif self._held is not None:
            self._release()  # a wider fixture is set up unsealed, as the real machine has it

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item: pytest.Item) -> None:
        if self._item is not item:
            self._enter(item)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_teardown(self, nextitem: Optional[pytest.Item]) -> None:
        self._next = nextitem

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        self._release()
        if self.relay is not None and self.relay.worker:
            data = {
                "sealed": len(self.sealed),
                "removed": sorted(self.removed),
                "ambient": self.ambient,
            }
            self.relay.ship("hermetic", data)

    def take(self, data: dict[str, Any]) -> None:
        """On the xdist controller: what one worker sealed, removed and ran unsealed."""
        self._sealed_elsewhere += data["sealed"]
        self.removed.update(data["removed"])
        self.ambient.extend(data["ambient"])

    def _removals(self, before: dict[Any, Any]) -> list[tuple[str, Any]]:
        """(name, raw key) of every variable in ``before`` that the seal removes."""
        found = []
        decisions = self._decisions
        for raw in before:
            try:
                name = decisions[raw]
            except KeyError:
                decoded = _decodekey(raw)
                name = decisions[raw] = decoded if self.seal.removed([decoded]) else None
            if name is not None:
                found.append((name, raw))
            elif self.base is None:  # no process seal took out the passwords in URLs: by value
                decoded = _decodekey(raw)
                if self.seal.removed({decoded: _decodevalue(before[raw])}):
                    found.append((decoded, raw))
        base = self.base
        if base is not None:
            # Only what the process seal kept on purpose (truegreen's own settings): a variable
            # that appeared since is the suite's.
            found = [(name, raw) for name, raw in found if base.get(raw) == before[raw]]
        return found

    def _take_home(self, item: pytest.Item) -> Path:
        """A fresh empty home: the last one again if its test left it untouched."""
        home, self._spare = self._spare, None
        if home is not None:
            return home
        if self.homes is None:
            self.homes = item.config._tmp_path_factory.getbasetemp() / "truegreen-home"  # type: ignore[attr-defined]
            self.homes.mkdir(exist_ok=True)
            self.redirect.basetemp = os.path.normcase(os.path.abspath(self.homes.parent))
        self._made += 1
        home = self.homes / str(self._made)
        home.mkdir()
        self._home_mode = home.stat().st_mode
        return home

    def _give_back(self, home: Path) -> None:
        # Creating a directory is the dearest step of the seal on many disks; a home
        # its test never wrote into (still empty, same mode) is as fresh as a new one.
        try:
            with os.scandir(home) as entries:
                if next(entries, None) is None and os.stat(home).st_mode == self._home_mode:
                    self._spare = home
        except OSError:
            pass

    def _tmp(self, item: pytest.Item) -> str:
        request = getattr(item, "_request", None)
        if request is None:
            return str(item.config._tmp_path_factory.mktemp("truegreen-tmp"))  # type: ignore[attr-defined]
        return str(request.getfixturevalue("tmp_path"))

    def _enter(self, item: pytest.Item, tmp: str = "") -> None:
        self._item = item
        item.addfinalizer(self._leave)
        # item.keywords holds the names of the markers of the item and its parents: a few
        # dictionary lookups, where get_closest_marker walks the node chain every time.
        if AMBIENT_MARKER in item.keywords:
            self._release()
            if item.nodeid not in self.ambient[-1:]:  # a rerun is the same test
                self.ambient.append(item.nodeid)
            if self.session is not None:  # the process seal undone, for this test only
                self._unsealed = _snapshot()
                machine = self.session.machine
                for name in (*self.session.removed, *self.session.set):
                    if name in machine:
                        _ENV[name] = machine[name]
                    else:
                        _ENV.pop(name, None)
                _tzset()
            return
        held = self._held
        if held is not None:
            self._held = None
            if _unchanged(held._after):
                self._continue(item, held)
                return
            _restore(held._before)  # something between the tests changed it: seal afresh
        before = _snapshot()
        home = self._take_home(item)
        self.current = sealed = Hermetic(home=home, _before=before, _taken=home)
        if self.needs_tmp and not tmp:
            tmp = self._tmp(item)
        removed = self._removals(before)
        # Undo entries keep the encoded key and value (or None), decoded only if ever needed.
        undo: list[tuple[str, Any, Any]] = [(name, raw, before[raw]) for name, raw in removed]
        for name, raw, _ in undo:
            _drop(raw, name)
        for name, value, raw, raw_value in self._assignments(str(home), tmp):
            was = before.get(raw)
            if was == raw_value or (self.base is not None and was != self.base.get(raw)):
                continue  # already so, or a wider fixture's decision
            undo.append((name, raw, was))
            _put(raw, raw_value, name, value)
        if self.base is not None and before.get(_HOME) != self.base.get(_HOME):
            sealed.home = Path(_decodevalue(before[_HOME])) if _HOME in before else home
        after = sealed._after = _snapshot()
        sealed._undo = undo
        # What the process seal removed is cleared for this test too (the failure hints ask).
        sealed.cleared = self._session_removed + tuple(name for name, _ in removed)
        if not self._tz_noop and after.get(_TZ) != before.get(_TZ):
            _tzset()
        self._begin(item.nodeid, sealed)

    def _continue(self, item: pytest.Item, sealed: Hermetic) -> None:
        """Seal the next test with the seal the last one left on: only a new home to set,
        and not even that when the last test left its home untouched."""
        home = self._take_home(item)
        if home != sealed._taken:
            if sealed.home == sealed._taken:
                sealed.home = home
            sealed._taken = home
            after = sealed._after
            assigned = {raw for _, raw, _ in sealed._undo}
            for name, value, raw, raw_value in self._assignments(str(home), ""):
                if raw in assigned and after.get(raw) != raw_value:
                    _put(raw, raw_value, name, value)
            sealed._after = _snapshot()
        self._begin(item.nodeid, sealed)

    def _assignments(self, home: str, tmp: str) -> list[tuple[str, str, Any, Any]]:
        """The seal's (name, value, encoded name, encoded value) for this home, encoded once
        per home rather than once per test (an untouched home is handed on)."""
        if (home, tmp) != self._assigned[0]:
            values = self.seal.assignments(home=home, tmp=tmp)
            self._assigned = (
                (home, tmp),
                [(n, v, _encodekey(n), _encodevalue(v)) for n, v in values.items()],
            )
        return self._assigned[1]

    def _begin(self, nodeid: str, sealed: Hermetic) -> None:
        """The test runs sealed from here: count it, redirect platformdirs, reset caches."""
        self.current = sealed
        self.sealed.add(nodeid)
        if sealed.cleared is not self._counted:  # a seal held on for the next test: counted
            self._counted = sealed.cleared
            self.removed.update(sealed.cleared)
        self.redirect.current = str(sealed.home)
        for reset in self.resetters:
            reset()
        self.events.seal(sealed)

    def _may_hold(self, item: Optional[pytest.Item]) -> bool:
        """Whether the seal may stay on until the next test: nothing but the test's own
        node is torn down in between, and the next test sets up no wider fixture that
        pytest would tear down before any hook of ours sees it (a parametrized one)."""
        following = self._next
        if item is None or following is None or following.parent is not item.parent:
            return False
        if self.needs_tmp or AMBIENT_MARKER in following.keywords:
            return False
        callspec = getattr(following, "callspec", None)
        if callspec is None:
            return True
        scopes = getattr(callspec, "_arg2scope", None)
        if scopes is None:
            return False
        return all(getattr(scope, "value", scope) == "function" for scope in scopes.values())

    def _release(self) -> None:
        """Take off a seal left on between tests."""
        held, self._held = self._held, None
        if held is not None:
            self._unseal(held, _snapshot())

    def _leave(self) -> None:
        unsealed, self._unsealed = self._unsealed, None
        if unsealed is not None:
            _restore(unsealed)  # back to the process seal after a test run unsealed
            _tzset()
        item, self._item = self._item, None
        sealed, self.current = self.current, None
        if sealed is None:
            return
        self.events.unseal()
        if sealed._taken is not None:
            self._give_back(sealed._taken)
        if _unchanged(sealed._after) and self._may_hold(item):
            self._held = sealed
            return
        self._unseal(sealed, _snapshot())

    def _unseal(self, sealed: Hermetic, now: dict[Any, Any]) -> None:
        self.redirect.current = None
        if sealed._after == now:
            # The test left the environment as the seal made it: undo just the seal.
            for name, raw_key, raw in reversed(sealed._undo):
                if raw is None:
                    _drop(raw_key, name)
                else:
                    _put(raw_key, raw, name, _decodevalue(raw) if _DATA is None else "")
        else:
            _restore(sealed._before)
        if not self._tz_noop and now.get(_TZ) != sealed._before.get(_TZ):
            _tzset()

    # -- session ----------------------------------------------------------------

    def pytest_sessionstart(self) -> None:
        self.redirect.install()

    def pytest_unconfigure(self) -> None:
        self.redirect.uninstall()

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Import the declared cache resets now that the tests' own imports have run."""
        if not self.settings.reset_caches:
            return
        from truegreen.core.references import resolve_callable

        for ref in self.settings.reset_caches:
            try:
                reset = resolve_callable(ref)
            except Exception as exc:  # any failure to import is the user's to fix
                where = self.settings.layers.get("reset-caches", "default")
                pytest.exit(
                    f"truegreen: {where}: reset-caches: expected an importable callable, "
                    f"found {ref!r} ({type(exc).__name__}: {exc})",
                    returncode=pytest.ExitCode.USAGE_ERROR,
                )
            self.resetters.append(reset)

    def pytest_report_header(self) -> list[str]:
        s = self.settings
        parts = ["fresh HOME and XDG per test", "git config and identity", "credentials"]
        if self.session is not None:
            parts.insert(0, "the whole process from before the first conftest")
        if s.timezone:
            parts.append(f"TZ={s.timezone}")
        if s.locale:
            parts.append(f"LANG={s.locale}")
        if s.term:
            parts.append(f"TERM={s.term}")
        if s.clear_env or s.clear_env_prefixes:
            parts.append("declared variables")
        return [
            f"truegreen {__version__}: hermetic environment on ({', '.join(parts)}); "
            "off: -p no:truegreen, or hermetic = false in [tool.truegreen]"
        ]

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        sealed = len(self.sealed) + self._sealed_elsewhere
        if not sealed and not self.ambient:
            return
        tr = terminalreporter
        tr.write_sep("-", "truegreen")
        line = f"{counted(sealed, 'test')} sealed, each with a fresh HOME"
        if self.session is not None:
            line = f"process sealed before the first conftest; {line}"
        line = f"hermetic: {line}"
        if self.removed:
            machine = self.session.machine if self.session is not None else os.environ
            reasons = Counter(self.seal.reason(n, machine.get(n)) for n in self.removed)
            detail = ", ".join(f"{n} {why}" for why, n in sorted(reasons.items(), key=str))
            line += f"; ambient variables removed: {detail}"
        tr.write_line(line)
        if self.ambient:
            unsealed = counted(len(self.ambient), "test")
            tr.write_line(f"ran unsealed (@pytest.mark.truegreen_ambient): {unsealed}")
            ambient = self.relay.ordered(self.ambient) if self.relay else self.ambient
            for nodeid in ambient:
                tr.write_line(f"  {nodeid}")
        if tr.verbosity < 1 and self.removed:
            tr.write_line("names of removed variables: truegreen doctor")


class HermeticPluginWithTmp(HermeticPlugin):
    """The seal when ``set-env`` uses ``{tmp}``: when the first function-scoped fixture is
    ``tmp_path`` itself, let pytest make it, then seal with it."""

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_fixture_setup(  # type: ignore[override]
        self, fixturedef: Any, request: pytest.FixtureRequest
    ) -> Generator[None, Any, Any]:
        if fixturedef.scope != "function" or self._item is request.node:
            return (yield)
        if fixturedef.argname == "tmp_path":
            path = yield  # an error setting it up propagates: no seal
            self._enter(request.node, tmp=str(path))
            return path
        self._enter(request.node)
        return (yield)
