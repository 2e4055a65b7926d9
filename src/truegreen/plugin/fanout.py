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

from typing import TYPE_CHECKING, Any, Callable

import pytest

from truegreen.plugin.listing import HooksOnly

if TYPE_CHECKING:
    from truegreen.plugin.sealed import Hermetic

# The one declared order, for every event. The guards come first: they fail the report of the
# phase a violation happened in, before anyone reads it. The failure hints then see the report
# with the children's records read and the guards' verdict in it; everything after counts or
# records the report as it finally is.
ORDER = (
    "guards",  # the guards: who is running, and the verdict on each report
    "leftovers",  # leftover processes: a teardown's verdict on the children left running
    "ambient",  # ambient reads: what each test read from os.environ
    "hints",  # failure hints: what a failing sealed test reached for
    "integrity",  # run integrity: what ran, what was skipped
    "shard",  # the shard manifest's outcomes
    "tree",  # the tree guard's per-test changes (tree-guard = "each")
    "metrics",  # the event stream's test and phase records
)


class PerTest:
    """Hands each per-test event to the features registered for it, in :data:`ORDER`.

    A feature calls :meth:`add` with its slot and itself; whichever of these methods it has
    are called, any subset: ``on_logstart(nodeid)``, ``on_logreport(report)``,
    ``on_logfinish(nodeid)``, ``on_seal(sealed)``, ``on_unseal()``. The hooks are registered
    with pytest by :meth:`install`, once the features configured, and for a feature added
    later (the metrics, as the session starts) at once.
    """

    def __init__(self, pluginmanager: pytest.PytestPluginManager) -> None:
        self.pluginmanager = pluginmanager
        self.features: dict[str, object] = {}
        self._hooks: dict[str, Any] = {}  # event -> the plugin object that implements its hook
        self._seal: tuple[Callable[[Hermetic], None], ...] = ()
        self._unseal: tuple[Callable[[], None], ...] = ()
        self._installed = False

    def add(self, slot: str, feature: object) -> None:
        """Register ``feature`` in ``slot``."""
        if slot not in ORDER:
            raise ValueError(f"per-test slot: expected one of {ORDER}, found {slot!r}")
        if slot in self.features:
            raise ValueError(f"per-test slot {slot!r} is taken already")
        self.features[slot] = feature
        self._seal = self._calls("on_seal")
        self._unseal = self._calls("on_unseal")
        if self._installed:
            self.install()

    def install(self) -> None:
        """Implement the hot hooks someone listens to, and hand each its listeners in order."""
        self._installed = True
        calls = {event: self._calls(event) for event in _HOOKS}
        new = [event for event in _HOOKS if calls[event] and event not in self._hooks]
        if new:
            # One plugin object with a hook for each event someone listens to now, and none
            # for the others (pluggy charges for an implementation that calls nobody all the
            # same); registering one costs over a million instructions, so once per session
            # unless a feature added late (the metrics) listens to a new event.
            kind = type(
                "PerTestHooks", (HooksOnly,), {_HOOKS[event][0]: _HOOKS[event][1] for event in new}
            )
            hooks = kind()
            self.pluginmanager.register(hooks, "truegreen-per-test-" + "-".join(e[3:] for e in new))
            self._hooks.update(dict.fromkeys(new, hooks))
        for event, hooks in self._hooks.items():
            setattr(hooks, event, calls[event])

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


# The hot hooks' implementations, each calling the features' methods that the fan-out keeps on
# the hook object under the event's name.


def _logstart(self: Any, nodeid: str) -> None:
    for call in self.on_logstart:
        call(nodeid)


# tryfirst: the guards fail a report before pytest (or any plugin) reads it; pytest decides
# whether to run a test's call from this very report object.
@pytest.hookimpl(tryfirst=True)
def _logreport(self: Any, report: pytest.TestReport) -> None:
    for call in self.on_logreport:
        call(report)


def _logfinish(self: Any, nodeid: str) -> None:
    for call in self.on_logfinish:
        call(nodeid)


_HOOKS: dict[str, tuple[str, Callable[..., None]]] = {
    "on_logstart": ("pytest_runtest_logstart", _logstart),
    "on_logreport": ("pytest_runtest_logreport", _logreport),
    "on_logfinish": ("pytest_runtest_logfinish", _logfinish),
}
