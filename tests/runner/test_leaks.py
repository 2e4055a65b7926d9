"""The leak hunt end to end on a fake machine: exactly the three culprits, and nothing else."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import LEAKY_CULPRITS, leaky_machine
from truegreen.core.leakhunt import Leak, LeakReport, Progress, find_leaks
from truegreen.runner.leaks import LeakRuns
from truegreen.runner.process import PytestProcess
from truegreen.runner.procs import sealed_environment

CANARY = "tg-canary-leakhunt-18"


def hunt(
    ambient: dict[str, str], home: Path, project: Path, progress: Progress = lambda line: None
) -> LeakReport:
    pytest = PytestProcess(["-p", "no:cacheprovider"], who="leaks", cwd=project)
    runs = LeakRuns(pytest, ambient, home, sealed_environment)
    return find_leaks(runs, runs.machine(), progress)


def test_each_leak_is_blamed_on_its_own_culprit_and_no_other(tmp_path: Path) -> None:
    project, ambient, home = leaky_machine(tmp_path, CANARY)
    lines: list[str] = []
    report = hunt(ambient, home, project, lines.append)
    blamed = {leak.test: [f.label for f in leak.culprit or ()] for leak in report.leaks}
    assert blamed == LEAKY_CULPRITS
    assert {(leak.ambient, leak.sealed) for leak in report.leaks} == {("failed", "passed")}
    assert report.tests == 4
    assert report.factors == 30 + 1 + 4 + 2  # noise, MYAPP_MODE, dotfiles, zone and locale
    assert report.reruns <= 3 * (2 * 6 + 4)
    assert lines[:2] == ["ambient run: 4 tests, exit 1", "sealed run: 4 tests, exit 0"]
    assert not [line for line in lines if CANARY in line]


def test_a_suite_without_leaks_reports_none_and_reruns_nothing(tmp_path: Path) -> None:
    """Ablation: replace `ambient.of(name) != sealed.of(name)` with `True` in
    `src/truegreen/core/outcomes.py`."""
    project, ambient, home = leaky_machine(tmp_path, CANARY)
    (project / "test_leaky.py").write_text("def test_arithmetic():\n    assert 1 + 1 == 2\n")
    report = hunt(ambient, home, project)
    assert report.tests == 1  # premise: the suite ran
    assert (report.leaks, report.reruns) == ((), 0)


def test_a_test_no_factor_explains_has_no_culprit(tmp_path: Path) -> None:
    """The sealed run differs by something outside the factors: a marker file that only the
    first run finds."""
    project, ambient, home = leaky_machine(tmp_path, CANARY, noise=3)
    mark = tmp_path / "seen"
    (project / "test_leaky.py").write_text(
        "from pathlib import Path\n\n"
        "def test_first_run_only():\n"
        f"    mark = Path({str(mark)!r})\n"
        "    first = not mark.exists()\n"
        "    mark.write_text('x')\n"
        "    assert first\n"
    )
    report = hunt(ambient, home, project)
    assert report.leaks == (Leak("test_leaky.py::test_first_run_only", "passed", "failed", None),)
    assert report.reruns == 2  # the sealed run repeated, every factor at once, and no search


def test_a_difference_the_repeated_sealed_run_does_not_show_is_a_flake_not_a_leak(
    tmp_path: Path,
) -> None:
    """attrs' hypothesis test failed once sealed under load, and the search blamed the first
    factor it tried. A test that passes on every other run stands in for it.

    Ablation: replace `again.of(test) != second.of(test)` with `False` in
    `src/truegreen/core/leakhunt.py`."""
    project, ambient, home = leaky_machine(tmp_path, CANARY, noise=3)
    runs = tmp_path / "runs"
    (project / "test_leaky.py").write_text(
        "from pathlib import Path\n\n"
        "def test_every_other_run():\n"
        f"    runs = Path({str(runs)!r})\n"
        "    seen = runs.read_text() if runs.exists() else ''\n"
        "    runs.write_text(seen + 'x')\n"
        "    assert len(seen) % 2 == 0\n"
    )
    report = hunt(ambient, home, project)
    assert runs.read_text() == "xxx"  # premise: passed, failed sealed, passed sealed again
    assert (report.leaks, report.unsteady) == ((), ("test_leaky.py::test_every_other_run",))
    assert report.reruns == 1
