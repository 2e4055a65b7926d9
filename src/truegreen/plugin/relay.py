"""Under xdist: what the summaries need from the workers, sent to the controller that prints them.

A worker runs the tests, so what a summary lists (violations by test, programs run, variables
removed, the tests a gate matched) happens in the workers; the controller, which prints the
terminal summary, only sees each test's reports. So each feature with a summary registers
here: on a worker, its ``pytest_sessionfinish`` hands :meth:`Relay.ship` plain data (lists,
dicts, strings, numbers), which xdist sends with the worker's end of session (its
``workeroutput``); on the controller, :meth:`Relay.listen`'s callback gets each worker's data
as the worker goes down, before the controller's own session finishes, and the feature merges
it into what it prints. Without xdist nothing is shipped and nothing received.

The run's collection order (the controller learns it from its first worker) orders what the
summaries list by test, so a merged summary lists its tests as a single process would.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Callable, Optional

import pytest

from truegreen.plugin.listing import HooksOnly

# The workeroutput key everything truegreen ships travels under.
OUTPUT = "truegreen"
RELAY_KEY = pytest.StashKey["Relay"]()


class Relay(HooksOnly):
    """Ships a worker's summary data; hands the controller each worker's."""

    def __init__(self, config: pytest.Config) -> None:
        # On a worker, the dict xdist sends to the controller as the worker's session ends.
        self.output: Optional[dict[str, Any]] = getattr(config, "workeroutput", None)
        self.takers: dict[str, Callable[[Any], None]] = {}
        self.order: dict[str, int] = {}  # node id -> its place in the run's collection

    @property
    def worker(self) -> bool:
        """Whether this process is an xdist worker."""
        return self.output is not None

    def ship(self, name: str, data: Any) -> None:
        """On a worker: send ``data`` (plain data only) to the controller under ``name``."""
        if self.output is not None:
            self.output.setdefault(OUTPUT, {})[name] = data

    def listen(self, name: str, take: Callable[[Any], None]) -> None:
        """On the controller: call ``take`` with each worker's data shipped under ``name``."""
        self.takers[name] = take

    def ordered(self, nodeids: Iterable[str]) -> list[str]:
        """``nodeids`` in the run's collection order; the others (outside any test) after
        them, in the order given."""
        given = list(dict.fromkeys(nodeids))
        last = len(self.order)
        place = {n: self.order.get(n, last) for n in given}
        return sorted(given, key=place.__getitem__)

    # -- hooks ------------------------------------------------------------------

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.order = {item.nodeid: i for i, item in enumerate(session.items)}

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if not self.order:  # every worker collects the same tests in the same order
            self.order = {nodeid: i for i, nodeid in enumerate(ids)}

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """A worker is done (or crashed: then it shipped nothing)."""
        output = getattr(node, "workeroutput", None)
        shipped = output.get(OUTPUT) if isinstance(output, dict) else None
        if not isinstance(shipped, dict):
            return
        for name, take in self.takers.items():
            if name in shipped:
                take(shipped[name])


def relay(config: pytest.Config) -> Relay:
    """The session's relay, made and registered by whichever feature asks first."""
    found = config.stash.get(RELAY_KEY, None)
    if found is None:
        found = config.stash[RELAY_KEY] = Relay(config)
        config.pluginmanager.register(found, "truegreen-relay")
    return found
