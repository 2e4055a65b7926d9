"""The per-test fan-out: one implementation per hot hook, the declared order, features apart."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import truegreen.plugin
from tests.plugin.test_treeguard import make_repo
from truegreen.plugin.fanout import ORDER, PerTest

PLUGIN_DIR = Path(truegreen.plugin.__file__).parent
PACKAGE = "truegreen.plugin"
# The features: each a plugin object of its own, none importing another. The rest of plugin/
# is glue (the package's pytest_configure), neutral ground (fanout, stash, sealed, listing), or a
# feature's own helpers (the hermetic fixture, the platformdirs redirect).
FEATURES = frozenset(
    {
        "ambient",
        "guards",
        "hermetic",
        "hints",
        "integrity",
        "isolate",
        "metrics",
        "order",
        "platforms",
        "sharding",
        "sharedcache",
        "treeguard",
    }
)
HOT = ("pytest_runtest_logstart", "pytest_runtest_logreport", "pytest_runtest_logfinish")


def plugin_imports() -> dict[str, set[str]]:
    """Module name (``__init__`` for the package) -> the plugin modules it imports anywhere
    in its text: at the top, inside functions, and under ``if TYPE_CHECKING``."""
    graph: dict[str, set[str]] = {}
    for path in sorted(PLUGIN_DIR.glob("*.py")):
        found: set[str] = set()
        text = path.read_text("utf-8")  # truegreen: ignore[TG101] the import graph is the subject
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.module == PACKAGE:
                    found.update(alias.name for alias in node.names)
                elif node.module.startswith(PACKAGE + "."):
                    found.add(node.module[len(PACKAGE) + 1 :].split(".")[0])
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith(PACKAGE + "."):
                        found.add(alias.name[len(PACKAGE) + 1 :].split(".")[0])
        graph[path.stem] = found - {path.stem}
    return graph


def cycle_in(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` as a path that ends where it starts, or [] when it has none."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = "open"
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        state[node] = "done"
        path.pop()
        return []

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return []


def test_the_plugin_modules_import_each_other_without_a_cycle() -> None:
    graph = plugin_imports()
    assert {"fanout", "stash", "guards", "hints", "integrity"} <= graph.keys()  # premise
    assert cycle_in(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    # premise for the test above: a cycle through TYPE_CHECKING-style edges is found
    assert cycle_in({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]


def test_no_feature_imports_another() -> None:
    graph = plugin_imports()
    assert {name: graph[name] & FEATURES for name in FEATURES} == {name: set() for name in FEATURES}


def test_the_fan_out_imports_no_feature() -> None:
    assert plugin_imports()["fanout"] <= {"sealed", "listing"}


class Feature:
    """Records each event it is handed, with its slot."""

    def __init__(self, slot: str, seen: list[tuple[str, str]]) -> None:
        self.slot = slot
        self.seen = seen

    def on_logstart(self, nodeid: str) -> None:
        self.seen.append((self.slot, f"start {nodeid}"))

    def on_logreport(self, report: pytest.TestReport) -> None:
        self.seen.append((self.slot, f"report {report.outcome}"))
        report.outcome = "failed"  # what the guards do: everyone after sees it failed

    def on_logfinish(self, nodeid: str) -> None:
        self.seen.append((self.slot, f"finish {nodeid}"))

    def on_seal(self, sealed: object) -> None:
        self.seen.append((self.slot, f"seal {sealed}"))

    def on_unseal(self) -> None:
        self.seen.append((self.slot, "unseal"))


class Counts:
    """Listens to the reports only, as the run-integrity count does."""

    def __init__(self, seen: list[tuple[str, str]]) -> None:
        self.seen = seen

    def on_logreport(self, report: pytest.TestReport) -> None:
        self.seen.append(("integrity", f"report {report.outcome}"))


def hot_hooks(manager: pytest.PytestPluginManager) -> dict[str, list[str]]:
    """Hot hook -> the names of truegreen's plugin objects that implement it."""
    return {
        name: [
            impl.plugin_name
            for impl in getattr(manager.hook, name).get_hookimpls()
            if impl.plugin_name.startswith("truegreen")
        ]
        for name in HOT
    }


def _report() -> pytest.TestReport:
    return pytest.TestReport("t.py::test", ("t.py", 1, "test"), {}, "passed", None, "call")


def test_it_hands_each_event_to_the_features_in_the_declared_order() -> None:
    """Ablation: replace `[self.features[slot] for slot in ORDER if slot in self.features]`
    with `list(self.features.values())` in `src/truegreen/plugin/fanout.py`: the features
    see each event in the order they registered. Restored."""
    manager = pytest.PytestPluginManager()
    fanout = PerTest(manager)
    seen: list[tuple[str, str]] = []
    for slot in reversed(ORDER):  # registered backwards: the declared order still wins
        fanout.add(slot, Feature(slot, seen))
    fanout.install()
    manager.hook.pytest_runtest_logstart(nodeid="t.py::test", location=("t.py", 1, "test"))
    fanout.seal("home")  # type: ignore[arg-type]
    manager.hook.pytest_runtest_logreport(report=_report())
    fanout.unseal()
    manager.hook.pytest_runtest_logfinish(nodeid="t.py::test", location=("t.py", 1, "test"))
    report_outcomes = [what for _, what in seen if what.startswith("report")]
    assert [slot for slot, _ in seen] == list(ORDER) * 5
    assert report_outcomes == ["report passed"] + ["report failed"] * (len(ORDER) - 1)


def test_it_implements_only_the_hooks_a_feature_listens_to() -> None:
    """Ablation: replace `calls[event] and event not in self._hooks` with
    `event not in self._hooks` in `src/truegreen/plugin/fanout.py`: a log start and a log
    finish hook that call nobody. Restored."""
    manager = pytest.PytestPluginManager()
    fanout = PerTest(manager)
    fanout.add("integrity", Counts([]))
    fanout.install()
    assert hot_hooks(manager) == {
        "pytest_runtest_logstart": [],
        "pytest_runtest_logreport": ["truegreen-per-test-logreport"],
        "pytest_runtest_logfinish": [],
    }
    report_hook = manager.hook.pytest_runtest_logreport.get_hookimpls()[-1]
    assert report_hook.tryfirst  # the guards fail a report before pytest reads it


def test_a_late_feature_adds_only_the_hooks_nobody_listened_to() -> None:
    """The metrics register as the session starts: without the guards, the count listened to
    the reports only, so log start and log finish come then; the report hook stays one."""
    manager = pytest.PytestPluginManager()
    fanout = PerTest(manager)
    seen: list[tuple[str, str]] = []
    fanout.add("integrity", Counts(seen))
    fanout.install()  # the end of pytest_configure
    fanout.add("metrics", Feature("metrics", seen))
    assert hot_hooks(manager) == {
        "pytest_runtest_logstart": ["truegreen-per-test-logstart-logfinish"],
        "pytest_runtest_logreport": ["truegreen-per-test-logreport"],
        "pytest_runtest_logfinish": ["truegreen-per-test-logstart-logfinish"],
    }
    manager.hook.pytest_runtest_logreport(report=_report())
    assert seen == [("integrity", "report passed"), ("metrics", "report passed")]


def test_it_refuses_a_slot_it_does_not_declare_or_that_is_taken() -> None:
    fanout = PerTest(pytest.PytestPluginManager())
    with pytest.raises(ValueError, match=r"expected one of \('guards', .*found 'coverage'"):
        fanout.add("coverage", object())
    fanout.add("guards", object())
    with pytest.raises(ValueError, match="per-test slot 'guards' is taken already"):
        fanout.add("guards", object())


def test_a_session_with_every_feature_has_one_implementation_per_hot_hook(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The guards, the ambient reads, the hints, the count, the shard, the tree guard in each
    mode and the metrics all listen; pluggy sees truegreen once per hot hook (the fan-out's
    own logic carries the ablation records of the tests above: an ablated fan-out is the
    fan-out of the session that runs this test too)."""
    pytester.makeconftest(
        f"""
        HOT = {HOT!r}

        def pytest_terminal_summary(terminalreporter, config):
            for name in HOT:
                impls = getattr(config.pluginmanager.hook, name).get_hookimpls()
                mine = [i.plugin_name for i in impls if "truegreen" in i.plugin_name]
                terminalreporter.write_line(f"HOT {{name}} {{mine}}")
        """
    )
    make_repo(pytester, test_a="def test_a():\n    pass\n")
    metrics = tmp_path_factory.mktemp("metrics")
    result = pytester.runpytest_subprocess(
        "--truegreen-shard=1/1",
        "--truegreen-tree-guard=each",
        f"--truegreen-metrics={metrics}",
        "--trace-config",
    )
    result.assert_outcomes(passed=1)
    # premise: every listener is on
    for name in ("guards", "ambient-reads", "integrity", "sharding", "tree-guard-each"):
        result.stdout.fnmatch_lines([f"*truegreen-{name}*: <*"])
    assert list(metrics.glob("*/session-*.jsonl"))
    # one plugin object for the three, registered by the guards; the metrics, registered as
    # the session starts, listen to no event nobody listened to before
    result.stdout.fnmatch_lines(
        [f"HOT {name} ['truegreen-per-test-logstart-logreport-logfinish']" for name in HOT]
    )
