"""Run integrity: a skipped, deselected or missing gate fails the run; so does running nothing."""

from __future__ import annotations

import textwrap

import pytest

from truegreen.core.protocol import ONLY_FILE

GATE = """
import pytest

from truegreen.core.protocol import ONLY_FILE

def test_gate():
    assert True

@pytest.mark.skip(reason="needs the staging database")
def test_skipped_gate():
    pass

def test_other():
    pass
"""


@pytest.fixture
def gate(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(test_gates=GATE)
    return pytester


def test_a_gate_that_ran_green_passes(gate: pytest.Pytester) -> None:
    result = gate.runpytest_subprocess("--truegreen-must-run=test_gates.py::test_gate")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "*- truegreen run integrity -*",
            "collected 3, ran 2 (2 passed), skipped 1, deselected 0",
            "  skipped 1: needs the staging database",
        ]
    )


# The per-test fan-out feeds the count, the guards on or off.
GUARDS_OFF = (
    "--truegreen-set", "writes=off", "--truegreen-set", "reads=off",
    "--truegreen-set", "network=allow",
)  # fmt: skip


@pytest.mark.parametrize("guards", [(), GUARDS_OFF], ids=["guards on", "guards off"])
def test_a_skipped_gate_fails_the_run(gate: pytest.Pytester, guards: tuple[str, ...]) -> None:
    """Ablation: replace `nodeid in self.skipped` with `False` in
    `src/truegreen/plugin/integrity.py`: the run exits 0. Restored. Ablation: delete
    `per_test(config).add("integrity", plugin)` in `src/truegreen/plugin/integrity.py`: the
    guards on or off, the gate reads "not run". Restored."""
    result = gate.runpytest_subprocess(
        "--truegreen-must-run=test_gates.py::test_skipped_gate", *guards
    )
    result.assert_outcomes(passed=2, skipped=1)  # premise: pytest itself calls this green
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "collected 3, ran 2 (2 passed), skipped 1, deselected 0",
            "FAILED GATE test_gates.py::test_skipped_gate: skipped (needs the staging database): "
            "the gate did not run",
        ]
    )
    # premise: the guards were on, or off; the fan-out's report hook was there either way
    plugins = _plugins(gate, guards)
    assert ("GuardsPlugin" in plugins) == (not guards)
    assert "truegreen.plugin.fanout.PerTestHooks" in plugins


def _plugins(pytester: pytest.Pytester, extra: tuple[str, ...]) -> str:
    """The names of the plugins a run registers (pytest --trace-config lists them)."""
    return pytester.runpytest_subprocess("--trace-config", "--co", "-q", *extra).stdout.str()


XDIST = ("-n", "2", "-p", "xdist")


@pytest.mark.parametrize("xdist", [(), XDIST], ids=["one process", "xdist"])
def test_a_gate_another_plugin_deselected_fails_the_run(
    gate: pytest.Pytester, xdist: tuple[str, ...]
) -> None:
    """pytest-split's group 3 of 3 is test_other: the gate is inside the user's selection,
    and another plugin took it out.

    Ablation: replace `nodeid in self.deselected` with `False` in
    `src/truegreen/plugin/integrity.py`: the run exits 0."""
    result = gate.runpytest_subprocess(
        "-p", "pytest_split", "--splits", "3", "--group", "3",
        "--truegreen-must-run=*::test_gate", *xdist,
    )  # fmt: skip
    result.assert_outcomes(passed=1)  # premise: pytest-split kept test_other alone
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "collected 3, ran 1 (1 passed), skipped 0, deselected 2",
            "FAILED GATE test_gates.py::test_gate: deselected: the gate did not run",
            "to run without the gates this once: --truegreen-must-run= (empty)",
        ]
    )


GATED = {
    "test_gates": """
        import pytest

        def test_gate():
            pass

        @pytest.mark.skip(reason="needs the staging database")
        def test_skipped_gate():
            pass

        @pytest.mark.fast
        def test_other():
            pass
        """,
    "test_elsewhere": """
        def test_elsewhere():
            pass
        """,
}
GATES_TOML = """
[tool.truegreen]
must-run = ["test_gates.py::test_gate", "test_gates.py::test_skipped_gate"]

[tool.pytest.ini_options]
markers = ["fast: a fast test"]
"""


@pytest.fixture
def gated(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(**GATED)
    pytester.makepyprojecttoml(GATES_TOML)
    return pytester


OUTSIDE = {
    "another file": (["test_elsewhere.py"], "test_gates.py::test_gate: outside this selection"),
    "a node id": (["test_gates.py::test_other"], "test_gates.py::test_gate: outside this sel*"),
    "-k": (["-k", "other"], "test_gates.py::test_gate: left out by -k"),
    "-m": (["-m", "fast"], "test_gates.py::test_gate: left out by -m"),
    "--deselect": (
        [
            "test_gates.py",
            "--deselect=test_gates.py::test_gate",
            "--deselect=test_gates.py::test_s",
        ],
        "test_gates.py::test_gate: left out by --deselect",
    ),
}


@pytest.mark.parametrize(
    ("selection", "xdist"),
    [*((name, ()) for name in OUTSIDE), ("another file", XDIST), ("-k", XDIST)],
    ids=[*OUTSIDE, "another file, xdist", "-k, xdist"],
)
def test_a_gate_outside_the_selection_is_not_required(
    gated: pytest.Pytester, selection: str, xdist: tuple[str, ...]
) -> None:
    """A partial run (one file, one test, -k, -m, --deselect) passes when the gates lie
    outside what it selected; the summary says which gates it did not require.

    Ablation: replace `covers(args, pattern)` with `True` in
    `src/truegreen/plugin/integrity.py`. Ablation: replace `"-k"` with `None` in
    `src/truegreen/plugin/integrity.py`. Ablation: replace `"-m"` with `None` in
    `src/truegreen/plugin/integrity.py`. Ablation: replace `"--deselect"` with `None` in
    `src/truegreen/plugin/integrity.py`."""
    full = gated.runpytest_subprocess()
    assert full.ret == 1  # premise: the whole suite fails the skipped gate
    args, line = OUTSIDE[selection]
    result = gated.runpytest_subprocess(*args, *xdist)
    result.assert_outcomes(passed=1)  # premise: one test of the selection ran, no gate
    assert result.ret == 0
    result.stdout.fnmatch_lines([f"gate not required in this run: {line}"])
    result.stdout.no_fnmatch_line("FAILED GATE*")


LAST_FAILED = {
    # where test_flaky failed, what the rerun names besides --lf, and the gate's line
    "beside the gates": ("test_gates", (), "test_gates.py::test_gate: outside this selection"),
    "in another file": ("test_elsewhere", (), "test_gates.py::test_gate: outside this selection"),
    "the gates' file named": (
        "test_gates",
        ("test_gates.py",),
        "test_gates.py::test_gate: left out by --lf",
    ),
}


@pytest.mark.parametrize(
    ("case", "xdist"),
    [*((case, ()) for case in LAST_FAILED), ("in another file", XDIST)],
    ids=[*LAST_FAILED, "in another file, xdist"],
)
def test_last_failed_requires_only_the_gates_it_reruns(
    gated: pytest.Pytester, case: str, xdist: tuple[str, ...]
) -> None:
    """--lf after a failure: pytest collects only the failed test of its file and skips the
    other files; with the file named, it collects the whole file and deselects the rest.

    Ablation: replace `"--lf"` with `None` in
    `src/truegreen/plugin/integrity.py`. Ablation: replace `any(matches(n, pattern) for n in
    last_failed)` with `True` in `src/truegreen/plugin/integrity.py`."""
    failed_in, named, line = LAST_FAILED[case]
    flaky = "import os\n\ndef test_flaky():\n    assert not os.path.exists('broken')\n"
    gated.makepyfile(**{failed_in: textwrap.dedent(GATED[failed_in]) + flaky})
    (gated.path / "broken").write_text("")
    first = gated.runpytest_subprocess("--truegreen-must-run=")
    first.assert_outcomes(passed=3, failed=1, skipped=1)  # premise: test_flaky failed
    (gated.path / "broken").unlink()
    result = gated.runpytest_subprocess("--lf", *named, *xdist)
    result.assert_outcomes(passed=1)  # premise: --lf ran test_flaky alone
    assert result.ret == 0
    result.stdout.fnmatch_lines([f"gate not required in this run: {line}"])


def test_a_skipped_gate_inside_a_partial_selection_still_fails(gated: pytest.Pytester) -> None:
    result = gated.runpytest_subprocess("-k", "skipped or elsewhere")
    result.assert_outcomes(passed=1, skipped=1)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        ["FAILED GATE test_gates.py::test_skipped_gate: skipped (needs the staging database)*"]
    )


def test_a_missing_gate_inside_a_partial_selection_still_fails(gated: pytest.Pytester) -> None:
    """The selection names the gate's file; the gate is not in it.

    Ablation: replace `_under(fixed, arg)` with `False` in
    `src/truegreen/core/mustrun.py`."""
    result = gated.runpytest_subprocess(
        "test_gates.py", "--truegreen-must-run=test_gates.py::test_renamed"
    )
    result.assert_outcomes(passed=2, skipped=1)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        ["FAILED GATE test_gates.py::test_renamed: no collected test matches: the gate*"]
    )


WAIVERS = {"dedicated flag": ("--truegreen-must-run=",), "set": ("--truegreen-set", "must-run=")}


@pytest.mark.parametrize("waiver", WAIVERS.values(), ids=WAIVERS.keys())
@pytest.mark.parametrize("xdist", [(), XDIST], ids=["one process", "xdist"])
def test_an_empty_must_run_flag_runs_without_the_gates(
    gated: pytest.Pytester, xdist: tuple[str, ...], waiver: tuple[str, ...]
) -> None:
    """Either flag with an empty value waives the configured gates for this run.

    Ablation: replace `[pattern for pattern in value if pattern]` with `value` in
    `src/truegreen/core/config.py`: the empty pattern is a configuration error. Ablation:
    replace `[part.strip() for part in text.split(",") if part.strip()]` with
    `[part.strip() for part in text.split(",")]` in `src/truegreen/core/config.py`."""
    full = gated.runpytest_subprocess(*xdist)
    assert full.ret == 1  # premise: the configured gate fails the run
    full.stdout.fnmatch_lines(["to run without the gates this once: --truegreen-must-run= (empty)"])
    result = gated.runpytest_subprocess(*waiver, *xdist)
    result.assert_outcomes(passed=3, skipped=1)
    assert result.ret == 0
    result.stdout.no_fnmatch_line("FAILED GATE*")


def test_collected_counts_each_test_once(pytester: pytest.Pytester) -> None:
    """A plugin that reports one deselection twice: pytest collected 3 tests, not 4."""
    pytester.makepyfile(test_three=GATE)
    pytester.makeconftest(
        """
        def pytest_collection_modifyitems(config, items):
            away = [item for item in items if item.name == "test_other"]
            items[:] = [item for item in items if item not in away]
            config.hook.pytest_deselected(items=away)
            config.hook.pytest_deselected(items=away)
        """
    )
    result = pytester.runpytest_subprocess()
    result.stdout.fnmatch_lines(["collected 3 items / *", "collected 3, ran 1 (1 passed), *"])


def test_a_missing_gate_fails_the_run(gate: pytest.Pytester) -> None:
    gate.makepyprojecttoml('[tool.truegreen]\nmust-run = ["tests/test_renamed.py::test_gate"]\n')
    result = gate.runpytest_subprocess()
    result.assert_outcomes(passed=2, skipped=1)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        ["FAILED GATE tests/test_renamed.py::test_gate: no collected test matches: the gate*"]
    )


def test_a_run_that_executes_nothing_fails_unless_allowed(pytester: pytest.Pytester) -> None:
    """Ablation: replace `bool(here) and not self.ran and not self.allow_empty` with `False` in
    `src/truegreen/plugin/integrity.py`: the all-skipped run exits 0. Restored."""
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.skip(reason="later")
        def test_a():
            pass

        @pytest.mark.platforms("not any")
        def test_b():
            pass
        """
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(skipped=2)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["FAILED GATE no test ran: every collected test was skipped*"])
    allowed = pytester.runpytest_subprocess("--truegreen-set", "allow-empty=true")
    assert allowed.ret == 0
    deselected = pytester.runpytest_subprocess("-k", "nothing_matches")
    assert deselected.ret == 1
    deselected.stdout.fnmatch_lines(["collected 2, ran 0, skipped 0, deselected 2"])


def test_one_files_process_requires_only_the_gates_in_its_file(gated: pytest.Pytester) -> None:
    """`truegreen run --isolate-files` runs each file in a process of its own, which collects
    that file alone: the gates' file judges the gates.

    Ablation: replace `[Path(only_file).as_posix()]` with `[""]` in
    `src/truegreen/plugin/integrity.py`: the other file's process fails the gates."""
    gates = gated.runpytest_subprocess(ONLY_FILE.flag, "test_gates.py")
    assert gates.ret == 1  # premise: the gates' own process judges them
    gates.stdout.fnmatch_lines(["FAILED GATE test_gates.py::test_skipped_gate: skipped*"])
    other = gated.runpytest_subprocess(ONLY_FILE.flag, "test_elsewhere.py")
    other.assert_outcomes(passed=1)
    assert other.ret == 0
    other.stdout.fnmatch_lines(
        ["gate not required in this run: test_gates.py::test_gate: outside this selection"]
    )


FLAKY = """
def test_fails_the_first_time(tmp_path_factory):
    mark = tmp_path_factory.getbasetemp() / "attempted"
    first = not mark.exists()
    mark.touch()
    assert not first

def test_steady():
    pass
"""


@pytest.mark.parametrize("workers", [(), XDIST], ids=["n0", "n2"])
def test_a_pass_only_on_a_rerun_is_flaky_whatever_the_rerun_plugin_says(
    pytester: pytest.Pytester, workers: tuple[str, ...]
) -> None:
    """pytest-rerunfailures reports such a test as passed (and "rerun"): truegreen names it.

    Ablation: replace `outcome == "rerun"` with `False` in `src/truegreen/plugin/integrity.py`.
    """
    pytester.makepyfile(FLAKY)
    result = pytester.runpytest_subprocess(
        "--truegreen-tree-guard=off", "-p", "no:randomly", "--reruns", "1", *workers
    )
    outcomes = result.parseoutcomes()
    assert (outcomes["passed"], outcomes["rerun"]) == (
        2,
        1,
    )  # premise: the rerun plugin calls it a pass
    result.stdout.fnmatch_lines(
        [
            "FLAKY 1 test passed only on a rerun (the rerun plugin hid the failure; the test "
            "has a bug a rerun hides):",
            "  test_a_pass_only_on_a_rerun_is_flaky_whatever_the_rerun_plugin_says.py::"
            "test_fails_the_first_time",
        ]
    )
    assert "test_steady" not in result.stdout.str().split("FLAKY", 1)[1]


@pytest.mark.parametrize("workers", [(), XDIST], ids=["n0", "n2"])
def test_a_rerun_test_is_counted_once_as_sealed(
    pytester: pytest.Pytester, workers: tuple[str, ...]
) -> None:
    """Two tests, one run twice by the rerun plugin: the hermetic line says 2 tests sealed.

    Ablation: replace `self.sealed.add(nodeid)` with `self.sealed.add(str(len(self.sealed)))`
    in `src/truegreen/plugin/hermetic.py`."""
    pytester.makepyfile(FLAKY)
    result = pytester.runpytest_subprocess(
        "--truegreen-tree-guard=off", "-p", "no:randomly", "--reruns", "1", *workers
    )
    assert result.parseoutcomes()["rerun"] == 1  # premise: three attempts of two tests
    result.stdout.fnmatch_lines(["hermetic: process sealed *; 2 tests sealed, each with *"])
