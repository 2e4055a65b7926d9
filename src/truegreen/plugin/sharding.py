"""Sharding in a pytest run: after the user's own selection, keep shard K of N, write the manifest.

The order is fixed: collection, the platforms marker, the user's ``-k``/``-m`` and other
plugins' selections, then the shard, then the run-integrity count. Under xdist every
worker makes the same (deterministic) choice; the controller writes the manifest with the
outcomes, completing the collection part the first worker wrote. The manifest records
what the shard ran once every plugin has cut the collection, and which module deselected
what (pytest's own ``-k``, another sharding plugin, a conftest), so that ``shards verify``
can prove the run added up whoever did the splitting.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import Any, Optional

import pytest

from truegreen.core import protocol
from truegreen.core.config import Config
from truegreen.core.durations import read_durations
from truegreen.core.errors import ConfigError
from truegreen.core.manifests import FORMAT, eligible, manifest_name
from truegreen.core.shards import (
    ShardSpec,
    assign_by_digest,
    assign_by_duration,
    collection_digest,
    parse_shard,
    unit_durations,
    unit_of,
)
from truegreen.guards.hook import quiet
from truegreen.plugin.listing import HooksOnly
from truegreen.plugin.relay import relay
from truegreen.plugin.stash import MACHINE_ENV_KEY, SHARDED_OUT_KEY, per_test

# The machinery between a call of ``config.hook.pytest_deselected`` and its implementations.
_HOOK_CALLERS = ("pluggy", "_pytest.config.compat")


def documents(items: Sequence[pytest.Item]) -> dict[str, str]:
    """Node id -> document of every item that is not a Python test function: a doctest of a
    module or a text file, a block of a Sybil or other document. The items one collector (the
    document) yields run in sequence, in their order, by design; a shuffle must keep them so."""
    return {
        item.nodeid: f"{type(item.parent).__name__}:{item.parent.nodeid}"
        for item in items
        if not isinstance(item, pytest.Function) and item.parent is not None
    }


def _group(item: pytest.Item) -> Optional[str]:
    marker = item.get_closest_marker("xdist_group")
    if marker is None:
        return None
    name = marker.args[0] if marker.args else marker.kwargs.get("name")
    return str(name) if name is not None else None


def _reporter() -> str:
    """The module that called the hook now running: the first frame outside pluggy and
    pytest's hook proxy, above this plugin's hook implementation."""
    frame: Optional[FrameType] = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__", "").startswith(_HOOK_CALLERS):
        frame = frame.f_back
    return str(frame.f_globals.get("__name__", "?")) if frame is not None else "?"


def write_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write JSON so that a reader never sees half a file, even after a kill.

    truegreen's own write: the guards look away from it.
    """
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with quiet():
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(temporary, path)


def _outcome(report: pytest.TestReport, previous: Optional[str]) -> Optional[str]:
    if report.when == "setup":
        return "error" if report.failed else ("skipped" if report.skipped else previous)
    if report.when == "call":
        if hasattr(report, "wasxfail"):
            return "xfailed" if report.skipped else "xpassed"
        return str(report.outcome)
    return "error" if report.failed and previous != "failed" else previous


class ShardPlugin(HooksOnly):
    """Keeps shard K of N; writes ``shard-K-of-N.json`` when asked."""

    def __init__(self, config: pytest.Config, settings: Config) -> None:
        self.config = config
        self.settings = settings
        self.spec: Optional[ShardSpec] = parse_shard(settings.shard) if settings.shard else None
        self.manifest_dir = Path(settings.manifest) if settings.manifest else None
        self.plan_out: Optional[str] = config.getoption(protocol.PLAN_OUT.dest)
        self.collected: list[str] = []
        self.data: dict[str, Any] = {}
        self.outcomes: dict[str, str] = {}
        self.units: dict[str, str] = {}
        # module that reported them -> node ids deselected, other than by this plugin's cut
        self.deselected: dict[str, list[str]] = {}
        self.expected = ""
        self.platforms: dict[str, list[str]] = {}  # gated node id -> its marker, encoded
        self.provenance: Optional[dict[str, Any]] = None
        worker = getattr(config, "workerinput", None)
        self.worker: Optional[str] = worker["workerid"] if worker else None
        # Whether the shard's cut left this shard no test (more shards than units, or the
        # digest's draw): nothing to run is this shard's whole share, and that is green.
        self.emptied = False
        self.relay = relay(config)

    @classmethod
    def register(cls, config: pytest.Config, settings: Config) -> None:
        plugin = cls(config, settings)
        config.pluginmanager.register(plugin, "truegreen-sharding")
        per_test(config).add("shard", plugin)
        plugin.relay.listen("shard", plugin.take)

    def take(self, data: dict[str, Any]) -> None:
        """On the xdist controller: what a worker's cut left (every worker cuts alike)."""
        self.emptied = bool(data.get("emptied"))

    @property
    def controller(self) -> bool:
        """An xdist controller: its workers collect and run; it only sees their reports."""
        return self.config.pluginmanager.hasplugin("dsession")

    @property
    def name(self) -> str:
        spec = self.spec or ShardSpec(1, 1)
        return manifest_name(spec.k, spec.n)

    @property
    def external(self) -> bool:
        """Another plugin splits the suite; this one names the manifest and records it."""
        return self.settings.shard_mode == "external"

    def pytest_report_header(self) -> list[str]:
        if self.spec is None:
            return []
        mode = self.settings.shard_mode
        if self.external:
            return [
                f"truegreen shard {self.spec} (external): another plugin splits the suite; "
                f"the manifest records what this shard ran"
            ]
        return [
            f"truegreen shard {self.spec} ({mode}); reproduce it with "
            f"--truegreen-shard={self.spec} --truegreen-shard-mode={mode}"
        ]

    def pytest_itemcollected(self, item: pytest.Item) -> None:
        self.collected.append(item.nodeid)  # before any selection
        if "platforms" in item.keywords:  # core/platforms.py's MARKER, imported when marked
            from truegreen.core.platforms import MARKER, PlatformSpecError, checked_marker
            from truegreen.core.provenance import encode_marker

            try:
                marker = checked_marker(list(item.iter_markers(MARKER)))
            except PlatformSpecError:
                return  # a collection error (plugin/platforms.py): it runs nowhere
            if marker is not None:
                self.platforms[item.nodeid] = encode_marker(marker)

    def _provenance(self) -> dict[str, Any]:
        """The commit, CI run and attempt, host, Python and lane this run's manifest names;
        found once (git, outside CI, runs at most once per process that writes it)."""
        if self.provenance is None:
            from truegreen.core.provenance import fields, head_commit
            from truegreen.guards.git import environment, head

            machine = self.config.stash.get(MACHINE_ENV_KEY, None)
            env = os.environ if machine is None else machine
            with quiet():
                commit, _ = head_commit(
                    env, lambda: head(str(self.config.rootpath), environment(env))
                )
            self.provenance = fields(
                env, commit, sys_platform=sys.platform, machine=platform.machine(),
                implementation=platform.python_implementation(),
                version=tuple(sys.version_info[:3]), lane=self.settings.lane,
            )  # fmt: skip
        return self.provenance

    def _assign(self, units: dict[str, str]) -> dict[str, int]:
        assert self.spec is not None
        n = self.spec.n
        if self.settings.shard_mode == "digest":
            return assign_by_digest(set(units.values()), n)
        durations = read_durations(self.settings.durations) if self.settings.durations else {}
        seconds, median = unit_durations(units, durations)
        result = assign_by_duration(seconds, n)
        unit, largest = result.largest
        limit = (
            f"; the floor is set by the largest unit, {unit} ({largest:.2f}s)"
            if largest >= sum(result.loads) / n
            else ""
        )
        self.expected = (
            f"truegreen shard {self.spec} (duration): expected shard times "
            f"{min(result.loads):.2f}s to {max(result.loads):.2f}s, slowest / floor "
            f"{result.imbalance:.3f} (floor {result.floor:.2f}s{limit}); tests without a "
            f"recorded duration count {median:.2f}s"
        )
        return dict(result.shard_of)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        # The items of one document (the blocks of a Sybil document, a text file's doctests)
        # build on each other in their order: the document is their unit, never split.
        found = documents(items)
        units = {}
        for item in items:
            group = _group(item)
            if group is None and item.nodeid in found:
                units[item.nodeid] = found[item.nodeid]
            else:
                units[item.nodeid] = unit_of(item.nodeid, group)
        if self.plan_out:
            write_atomic(Path(self.plan_out), protocol.units_document(units, found))
        if self.external:
            # What another plugin keeps together is its business: each test is its own unit.
            units = {nodeid: nodeid for nodeid in units}
        elif self.spec is not None:
            try:
                shard_of = self._assign(units)
            except ConfigError as exc:
                raise pytest.UsageError(f"truegreen: {exc}") from None
            mine = self.spec.k - 1
            keep = [item for item in items if shard_of[units[item.nodeid]] == mine]
            away = [item for item in items if shard_of[units[item.nodeid]] != mine]
            if away:
                config.stash[SHARDED_OUT_KEY] = {item.nodeid for item in away}
                config.hook.pytest_deselected(items=away)
                items[:] = keep
                self.emptied = not keep
        self.units = units

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        """Record who deselected what: every deselection but this plugin's own shard cut."""
        source = _reporter()
        if source != __name__:
            self.deselected.setdefault(source, []).extend(item.nodeid for item in items)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # After every plugin's pytest_collection_modifyitems: what this shard will run.
        selected = [item.nodeid for item in session.items]
        self.data = self._collection_part(session.config, selected)
        if self.manifest_dir is not None and self.worker in (None, "gw0"):
            part = self.name if self.worker is None else f"{self.name}.collection"
            write_atomic(self.manifest_dir / part, {**self.data, "complete": False})

    def _collection_part(self, config: pytest.Config, selected: list[str]) -> dict[str, Any]:
        spec = self.spec or ShardSpec(1, 1)
        return {
            "format": FORMAT,
            "k": spec.k,
            "n": spec.n,
            "mode": self.settings.shard_mode,
            "collected": self.collected,
            "collected_digest": collection_digest(self.collected),
            "selection": {
                "args": [str(a) for a in config.invocation_params.args],
                "keyword": config.getoption("keyword") or "",
                "markexpr": config.getoption("markexpr") or "",
            },
            "eligible": eligible(self.collected, self.deselected),
            "selected": selected,
            "deselected": self.deselected,
            "units": self.units,
            "outcomes": {},
            "must_run": list(self.settings.must_run),
            "exitstatus": None,
            # the process that writes the manifest itself names where it ran (under xdist,
            # the controller, not the worker that writes the collection part)
            **(self._provenance() if self.worker is None else {}),
            "platforms": self.platforms,
        }

    def pytest_report_collectionfinish(self) -> list[str]:
        return [self.expected] if self.expected else []

    def pytest_sessionstart(self) -> None:
        if self.manifest_dir is not None and self.controller:
            spec = self.spec or ShardSpec(1, 1)
            started = {"format": FORMAT, "k": spec.k, "n": spec.n, "complete": False,
                       **self._provenance()}  # fmt: skip
            write_atomic(self.manifest_dir / self.name, started)

    def on_logreport(self, report: pytest.TestReport) -> None:
        outcome = _outcome(report, self.outcomes.get(report.nodeid))
        if outcome is not None:
            self.outcomes[report.nodeid] = outcome

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.emptied and session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
            session.exitstatus = pytest.ExitCode.OK  # pytest's 5 says "nothing collected"
        self.relay.ship("shard", {"emptied": self.emptied})
        if self.manifest_dir is None or (self.worker is not None):
            return
        data = dict(self.data)
        if self.controller:
            part = self.manifest_dir / f"{self.name}.collection"
            if part.is_file():
                data = json.loads(part.read_text(encoding="utf-8"))
                with quiet():
                    part.unlink()
        spec = self.spec or ShardSpec(1, 1)
        data.update(format=FORMAT, k=spec.k, n=spec.n, outcomes=self.outcomes)
        data.update(self._provenance())  # the writer's own, a worker's collection part aside
        data.update(exitstatus=int(session.exitstatus), complete="collected" in data)
        write_atomic(self.manifest_dir / self.name, data)
