"""The per-test fan-out: the hot per-test hooks implemented once, handed to the features in order.

pluggy costs about 4,000 instructions per hook implementation per call, and
``pytest_runtest_logstart``, ``pytest_runtest_logreport`` and ``pytest_runtest_logfinish`` are
called for every test (the report hook three times). So no feature implements them: each
registers with :class:`PerTest`, which implements each of them at most once for the whole of
truegreen (and not at all while no feature listens), and calls the features in the order
declared in :data:`ORDER`. The hermetic environment's seal and unseal of each test go through
the same object, so the features that watch a sealed test need no reference to the one that
seals it. No feature holds a reference to another; this module imports none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import pytest

if TYPE_CHECKING:
    from truegreen.plugin.sealed import Hermetic

# The one declared order, for every event. The guards come first: they fail the report of the
# phase a violation happened in, before anyone reads it. The failure hints then see the report
# with the children's records read and the guards' verdict in it; everything after counts or
# records the report as it finally is.
ORDER = (
    "guards",  # the guards: who is running, and the verdict on each report
    "ambient",  # ambient reads: what each test read from os.environ
    "hints",  # failure hints: what a failing sealed test reached for
    "integrity",  # run integrity: what ran, what was skipped
    "shard",  # the shard manifest's outcomes
    "tree",  # the tree guard's per-test changes (tree-guard = "each")
    "metrics",  # the event stream's test and phase records
)

# The events a feature may listen to, by the method that receives each.
EVENTS = ("on_logstart", "on_logreport", "on_logfinish", "on_seal", "on_unseal")


class PerTest:
    """Hands each per-test event to the features registered for it, in :data:`ORDER`.

    A feature calls :meth:`add` with its slot and itself; whichever of the methods named in
    :data:`EVENTS` it has are called (``on_logstart(nodeid)``, ``on_logreport(report)``,
    ``on_logfinish(nodeid)``, ``on_seal(sealed)``, ``on_unseal()``).
    """

    def __init__(self, pluginmanager: pytest.PytestPluginManager) -> None:
        self.pluginmanager = pluginmanager
        self.features: dict[str, object] = {}
        self._hooks: dict[str, _Hook] = {}
        self._seal: tuple[Callable[[Hermetic], None], ...] = ()
        self._unseal: tuple[Callable[[], None], ...] = ()

    def add(self, slot: str, feature: object) -> None:
        """Register ``feature`` in ``slot``; the hook objects follow whoever listens now."""
        if slot not in ORDER:
            raise ValueError(f"per-test slot: expected one of {ORDER}, found {slot!r}")
        if slot in self.features:
            raise ValueError(f"per-test slot {slot!r} is taken already")
        self.features[slot] = feature
        self._seal = self._calls("on_seal")
        self._unseal = self._calls("on_unseal")
        for event, kind in (
            ("on_logstart", _LogStart),
            ("on_logreport", _LogReport),
            ("on_logfinish", _LogFinish),
        ):
            calls = self._calls(event)
            hook = self._hooks.get(event)
            if hook is None and calls:
                # Registered on the first listener only: a hook nobody listens to costs
                # pluggy's call all the same.
                hook = self._hooks[event] = kind()
                self.pluginmanager.register(hook, f"truegreen-per-test-{event[3:]}")
            if hook is not None:
                hook.calls = calls

    def _calls(self, event: str) -> tuple[Callable[..., None], ...]:
        ordered = [self.features[slot] for slot in ORDER if slot in self.features]
        return tuple(getattr(f, event) for f in ordered if hasattr(f, event))

    def seal(self, sealed: Hermetic) -> None:
        """The hermetic environment sealed a test."""
        for call in self._seal:
            call(sealed)

    def unseal(self) -> None:
        """The hermetic environment is taking a test's seal off."""
        for call in self._unseal:
            call()


class _Hook:
    """One hot hook's single implementation; ``calls`` are the features' methods, in order."""

    calls: tuple[Callable[..., None], ...] = ()


class _LogStart(_Hook):
    def pytest_runtest_logstart(self, nodeid: str) -> None:
        for call in self.calls:
            call(nodeid)


class _LogReport(_Hook):
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # tryfirst: the guards fail a report before pytest (or any plugin) reads it; pytest
        # decides whether to run a test's call from this very report object.
        for call in self.calls:
            call(report)


class _LogFinish(_Hook):
    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        for call in self.calls:
            call(nodeid)
