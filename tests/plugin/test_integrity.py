"""Run integrity: a skipped, deselected or missing gate fails the run; so does running nothing."""

from __future__ import annotations

import pytest

GATE = """
import pytest

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


def test_a_deselected_gate_fails_the_run(gate: pytest.Pytester) -> None:
    """Ablation: replace `nodeid in self.deselected` with `False` in
    `src/truegreen/plugin/integrity.py`: the run exits 0. Restored."""
    result = gate.runpytest_subprocess("-k", "other", "--truegreen-must-run=*::test_gate")
    result.assert_outcomes(passed=1)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["FAILED GATE test_gates.py::test_gate: deselected: the gate*"])


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
