"""truegreen's plugin objects list only their hooks: pytest's fixture look-up walks every name."""

from __future__ import annotations

import pytest

from tests.plugin.test_treeguard import make_repo
from truegreen.plugin.listing import HooksOnly


class _Feature(HooksOnly):
    def __init__(self) -> None:
        self.state = 1

    def pytest_configure(self) -> None:
        pass

    def helper(self) -> None:
        pass


class _Narrower(_Feature):
    def pytest_unconfigure(self) -> None:
        pass


def test_a_plugin_object_lists_its_hooks_and_nothing_else() -> None:
    """Ablation: replace `[name for name in dir(type(self)) if name.startswith("pytest_")]`
    with `dir(type(self))` in `src/truegreen/plugin/listing.py`.
    """
    feature, narrower = _Feature(), _Narrower()
    assert feature.state == 1  # premise: it has more than hooks
    assert callable(feature.helper)
    assert dir(feature) == ["pytest_configure"]
    assert sorted(dir(narrower)) == ["pytest_configure", "pytest_unconfigure"]


def test_every_plugin_object_of_a_session_lists_only_hooks_and_they_still_run(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Every truegreen object registered with pytest, in a session with every feature on,
    lists only its hooks; the features still see their hooks (the run is sealed, sharded,
    counted, recorded and guarded).

    Ablation: replace `HooksOnly` with `object` in `src/truegreen/plugin/guards.py`.
    """
    pytester.makeconftest(
        """
        def pytest_terminal_summary(terminalreporter, config):
            for name, plugin in config.pluginmanager.list_name_plugin():
                module = getattr(type(plugin), "__module__", "")
                if not module.startswith("truegreen.plugin."):
                    continue  # pytest's, and the modules truegreen registers (its fixtures)
                extra = [n for n in dir(plugin) if not n.startswith("pytest_")]
                terminalreporter.write_line(f"LISTED {name} {len(dir(plugin))} {extra}")
        """
    )
    make_repo(pytester, test_a="import os\n\ndef test_a():\n    assert os.environ['TZ'] == 'UTC'\n")
    metrics = tmp_path_factory.mktemp("metrics")
    result = pytester.runpytest_subprocess(
        "--truegreen-shard=1/1", "--truegreen-tree-guard=each", f"--truegreen-metrics={metrics}"
    )
    result.assert_outcomes(passed=1)  # the seal set TZ
    assert list(metrics.glob("*/session-*.jsonl"))  # the metrics recorded the run
    listed = [line for line in result.outlines if line.startswith("LISTED ")]
    names = {line.split()[1] for line in listed}
    # premise: the features' objects are all there
    assert {"truegreen-guards", "truegreen-hermetic", "truegreen-integrity"} <= names
    assert {"truegreen-sharding", "truegreen-tree-guard-each", "truegreen-ambient-reads"} <= names
    assert all(line.endswith(" []") for line in listed), listed
