"""Under xdist the controller prints truegreen's summaries as a single process does.

The workers run the tests; each ships its summary data to the controller as it finishes
(plugin/relay.py), and the controller merges and prints. The proof: one suite that gives
every summary something to say, run with ``-n 0`` and ``-n 2``, section by section.
"""

from __future__ import annotations

import pytest

from tests.helpers import HAVE_GIT
from tests.plugin.test_treeguard import make_repo

pytest.importorskip("xdist")
requires_git = pytest.mark.skipif(not HAVE_GIT, reason="needs git (git --version does not run)")

SUITE = {
    "test_first": """
        import os
        import subprocess

        import pytest

        with open("collection-litter.txt", "w") as handle:  # at collection: outside any test
            handle.write("x")

        def test_writes_into_the_tree():
            with open("litter.txt", "w") as handle:
                handle.write("x")

        def test_runs_a_program():
            subprocess.run(["true"], check=True)

        def test_reads_a_machine_setting():
            assert os.environ.get("TG_XDIST_MACHINE_SETTING") == "on"

        @pytest.mark.skip(reason="needs the staging database")
        def test_gate():
            pass

        @pytest.mark.truegreen_ambient
        def test_unsealed():
            pass
        """,
    "test_second": """
        import subprocess

        def test_leaves_a_file_behind():
            subprocess.run(["sh", "-c", "touch shell-litter.txt"], check=True)

        def test_runs_a_program_twice():
            subprocess.run(["true"], check=True)
            subprocess.run(["true"], check=True)

        def test_plain():
            pass
        """,
}
LITTER = ("collection-litter.txt", "litter.txt", "shell-litter.txt")
RUN = ("-p", "no:randomly", "-p", "no:cacheprovider", "--truegreen-must-run=*::test_gate")


def sections(lines: list[str]) -> dict[str, list[str]]:
    """truegreen's terminal sections: title -> its lines, up to the next section or the end."""
    found: dict[str, list[str]] = {}
    current: list[str] = []
    for line in lines:
        title = line.strip("- ")
        if line.startswith("---") and title.startswith("truegreen"):
            current = found.setdefault(title, [])
        elif line.startswith(("---", "===")):
            current = []
            if "short test summary" in line:
                break
        else:
            current.append(line)
    return found


@requires_git
def test_the_controller_prints_every_summary_as_a_single_process_does(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ablation: replace `take(shipped[name])` with `None` in
    `src/truegreen/plugin/relay.py`: under -n 2 the integrity, guards, ambient-reads and
    hermetic sections are gone. Ablation: replace `self.outside.extend(item for item in
    data["outside"] if item not in before)` with `self.outside.extend(data["outside"])` in
    `src/truegreen/plugin/guards.py`: the collection's write is listed once per worker.
    Ablation: replace `tuple(sorted(name for name in removed if name in self.machine))` with
    `tuple(sorted(removed))` in `src/truegreen/plugin/session.py`: the workers count the
    COLUMNS and LINES that xdist set for them as the machine's variables."""
    monkeypatch.setenv("TG_XDIST_MACHINE_SETTING", "on")
    monkeypatch.setenv("GITHUB_TOKEN", "canary-token-value")
    repo = make_repo(pytester, **SUITE)

    single = pytester.runpytest_subprocess(*RUN)
    for name in LITTER:
        (repo / name).unlink()
    spread = pytester.runpytest_subprocess(*RUN, "-n", "2", "-p", "xdist")

    # Premise: the same tests ran and failed the same way, in one process and in two workers.
    assert "created: 2/2 workers" in spread.stdout.str()
    for result in (single, spread):
        result.assert_outcomes(passed=6, failed=1, skipped=1)
        assert result.ret == pytest.ExitCode.TESTS_FAILED
    alone = sections(single.stdout.lines)
    assert set(alone) == {
        "truegreen run integrity",
        "truegreen ambient reads",
        "truegreen guards",
        "truegreen tree guard",
        "truegreen",
    }
    text = "\n".join(line for lines in alone.values() for line in lines)
    for expected in (
        "FAILED GATE test_first.py::test_gate: skipped (needs the staging database): "
        "the gate did not run",
        "  TG_XDIST_MACHINE_SETTING: test_first.py::test_reads_a_machine_setting",
        "  test_first.py::test_writes_into_the_tree",
        "violations outside any test (the run fails):",
        "  test_second.py::test_runs_a_program_twice: true x2",
        "  new untracked file: shell-litter.txt",
        "  test_first.py::test_unsealed",
        "1 credentials (GitHub/GitLab)",
    ):
        assert expected in text
    assert sections(spread.stdout.lines) == alone


def test_a_skipped_gate_under_xdist_says_why_the_run_failed(pytester: pytest.Pytester) -> None:
    """The report's own "1 skipped" is not the reason: the gate's line is.

    Ablation: replace `plugin.relay.listen("integrity", plugin.take)` with `None` in
    `src/truegreen/plugin/integrity.py`."""
    pytester.makepyfile(
        test_gates="""
        import pytest

        @pytest.mark.skip(reason="needs the staging database")
        def test_gate():
            pass

        def test_other():
            pass
        """
    )
    result = pytester.runpytest_subprocess(
        "--truegreen-must-run=test_gates.py::test_gate", "-n", "2", "-p", "xdist"
    )
    result.assert_outcomes(passed=1, skipped=1)  # premise: pytest calls this green
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*- truegreen run integrity -*",
            "collected 2, ran 1 (1 passed), skipped 1, deselected 0",
            "  skipped 1: needs the staging database",
            "FAILED GATE test_gates.py::test_gate: skipped (needs the staging database): "
            "the gate did not run",
            "to run without the gates this once: --truegreen-must-run= (empty)",
        ]
    )


def test_the_relay_lists_tests_in_the_run_order_and_the_rest_after_them(
    pytester: pytest.Pytester,
) -> None:
    """Reports reach the controller in the order the workers finish them.

    Ablation: replace `sorted(given, key=place.__getitem__)` with `given` in
    `src/truegreen/plugin/relay.py`."""
    from truegreen.plugin.relay import Relay

    found = Relay(pytester.parseconfig())
    found.order = {"t.py::a": 0, "t.py::b": 1, "t.py::c": 2}
    given = ["t.py::c", "outside any test", "t.py::a", "t.py::c"]
    assert found.ordered(given) == ["t.py::a", "t.py::c", "outside any test"]


def test_a_violation_at_collection_in_the_workers_fails_the_run(pytester: pytest.Pytester) -> None:
    """Every test passes; the workers' collection wrote into the project tree.

    Ablation: replace `any(failing for _, failing in self.received.outside)` with `False` in
    `src/truegreen/plugin/guards.py`: the run exits 0."""
    pytester.makepyfile(
        test_litter="""
        with open("collection-litter.txt", "w") as handle:
            handle.write("x")

        def test_a():
            pass

        def test_b():
            pass
        """
    )
    result = pytester.runpytest_subprocess("--truegreen-tree-guard=off", "-n", "2", "-p", "xdist")
    result.assert_outcomes(passed=2)  # premise: pytest calls this green
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "violations outside any test (the run fails):",
            "  ?collection? write: did open for writing *collection-litter.txt*",
        ]
    )
