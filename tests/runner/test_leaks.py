"""The leak hunt end to end on a fake machine: exactly the three culprits, and nothing else."""

from __future__ import annotations

import os
from pathlib import Path

from tests.helpers import LEAKY_CULPRITS, leaky_machine
from truegreen.core.factors import Factor
from truegreen.core.leakhunt import HomeWrite, Leak, LeakReport, Progress, find_leaks
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
    """The sealed run differs by something outside the factors: the ``TERM=dumb`` it adds
    where the machine has no ``TERM``, which no factor takes away. The ambient run, repeated,
    gives the same outcome: a difference, with no culprit, not a flake."""
    project, ambient, home = leaky_machine(tmp_path, CANARY, noise=3)
    assert "TERM" not in ambient  # premise
    (project / "test_leaky.py").write_text(
        "import os\n\ndef test_on_a_real_terminal():\n    assert os.environ.get('TERM') != 'dumb'\n"
    )
    report = hunt(ambient, home, project)
    assert report.leaks == (
        Leak("test_leaky.py::test_on_a_real_terminal", "passed", "failed", None),
    )
    assert report.unsteady == ()
    # the sealed run repeated, every factor at once (no search), the ambient run repeated
    assert report.reruns == 3


def test_a_difference_only_the_first_ambient_run_shows_is_a_flake_not_a_leak(
    tmp_path: Path,
) -> None:
    """A marker file only the first run finds: the ambient run passes the test, every run
    after it fails it, the repeated ambient run too.

    Ablation: replace `again.of(test) != first.of(test)` with `False` in
    `src/truegreen/core/leakhunt.py`: it is a leak with no culprit. Restored."""
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
    assert report.tests == 1  # premise: the suite ran
    assert report.leaks == ()
    assert report.unsteady == ("test_leaky.py::test_first_run_only",)


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


# A module-level index whose first use fetches it from the configured source and warns about
# it; the project turns warnings into errors, so the first user of the index fails, and only
# the first (the warning comes after the fetch).
SHARED_INDEX = """
import os
import warnings


class Index:
    def __init__(self):
        self.source = None

    def lookup(self):
        if self.source is None:
            self.source = os.environ.get("MYAPP_SOURCE", "local")
            warnings.warn("the index was fetched on first use")
        return self.source


INDEX = Index()
"""
WARMS_THE_INDEX = """
import pytest

from shared import INDEX


def test_fetches_the_index_first():
    with pytest.warns(UserWarning):
        INDEX.lookup()
"""
VICTIMS = [f"test_victims.py::test_victim_{i}" for i in range(1, 7)]


def cache_machine(root: Path) -> tuple[Path, dict[str, str], Path]:
    """The leaky machine with a project whose six victims read a shared index that the test
    before them fetched from MYAPP_SOURCE, and an unrelated LOGNAME in the shell."""
    project, ambient, home = leaky_machine(root, CANARY, noise=3)
    (project / "test_leaky.py").unlink()
    (project / "pyproject.toml").write_text(
        "[tool.truegreen]\nhermetic = false\n\n"
        '[tool.pytest.ini_options]\nfilterwarnings = ["error"]\n'
    )
    (project / "shared.py").write_text(SHARED_INDEX)
    (project / "test_0_warm.py").write_text(WARMS_THE_INDEX)
    (project / "test_victims.py").write_text(
        "from shared import INDEX\n"
        + "".join(
            f"\n\ndef test_victim_{i}():\n    assert INDEX.lookup() == 'local'\n"
            for i in range(1, 7)
        )
    )
    ambient.update(MYAPP_SOURCE="remote", LOGNAME="developer")
    return project, ambient, home


def test_reruns_keep_the_tests_before_a_victim_so_it_is_neither_a_flake_nor_blamed_on_logname(
    tmp_path: Path,
) -> None:
    """Six victims read an index the test before them fetched from MYAPP_SOURCE. Rerun alone,
    the first victim is the index's first user and fails whatever is applied: it was filed as
    a flake, and the next one, first user in the search's reruns, blamed on LOGNAME.

    Ablation: replace `self.order[: last + 1]` with
    `[t for t in self.order[: last + 1] if t in which]` in
    `src/truegreen/core/leakhunt.py`."""
    project, ambient, home = cache_machine(tmp_path)
    pytest = PytestProcess(["-p", "no:cacheprovider"], who="leaks", cwd=project)
    runs = LeakRuns(pytest, ambient, home, sealed_environment)
    alone = runs.sealed(only=VICTIMS[:1])
    assert alone.of(VICTIMS[0]) == "failed"  # premise: alone, a victim is the first user
    assert runs.machine().factors[0].name == "LOGNAME"  # premise: the search's first factor
    report = find_leaks(runs, runs.machine())
    assert report.unsteady == ()
    blamed = {leak.test: [f.label for f in leak.culprit or ()] for leak in report.leaks}
    assert blamed == {victim: ["variable MYAPP_SOURCE"] for victim in VICTIMS}
    assert all(leak.confirmed for leak in report.leaks)


def test_truegreen_s_own_variables_go_into_the_sealed_run_and_are_never_a_factor(
    tmp_path: Path,
) -> None:
    """The shell sets truegreen's zone for every test; the sealed runs use it too, so the
    test that reads the zone does not differ, and TRUEGREEN_TIMEZONE is no culprit.

    Ablation: replace `n.startswith(ENV_PREFIX) or n == MUTANT_VAR` with `n == MUTANT_VAR` in
    `src/truegreen/runner/procs.py`."""
    project, ambient, home = leaky_machine(tmp_path, CANARY, noise=3)
    (project / "pyproject.toml").write_text("[tool.truegreen]\n")  # the seal on: it sets TZ
    (project / "test_leaky.py").write_text(
        "import time\n\ndef test_the_epoch_is_three_in_the_morning():\n"
        "    assert time.localtime(0).tm_hour == 3\n"
    )
    ambient["TRUEGREEN_TIMEZONE"] = "XYZ-3"
    pytest = PytestProcess(["-p", "no:cacheprovider"], who="leaks", cwd=project)
    runs = LeakRuns(pytest, ambient, home, sealed_environment)
    first = runs.ambient()
    assert first.tests == {"test_leaky.py::test_the_epoch_is_three_in_the_morning": "passed"}
    report = find_leaks(runs, runs.machine())
    assert (report.leaks, report.unsteady) == ((), ())
    assert not [f for f in runs.machine().factors if f.name.startswith("TRUEGREEN_")]


REPLAYS = """
import os
from pathlib import Path


def replay_dir(default):
    rc = Path(os.path.expanduser("~/.replayrc"))
    for line in rc.read_text().splitlines() if rc.is_file() else []:
        key, _, value = line.partition("=")
        if key.strip() == "replay_dir":
            return Path(value.strip())
    return default


def test_records_a_replay(tmp_path):
    (replay_dir(tmp_path) / "session.json").write_text("{}")
"""


def test_a_write_into_the_real_home_is_named_with_the_dotfile_that_leads_there(
    tmp_path: Path,
) -> None:
    """~/.replayrc names a directory in the home; the ambient run's guard stops the test's
    write there, which no rerun in a temporary home can do again: not a flake, not "none of
    the factors", and no rerun spent on it.

    Ablation: replace `test in written and first.of(test) in ("failed", "error")` with
    `False` in `src/truegreen/core/leakhunt.py`."""
    project, ambient, home = leaky_machine(tmp_path, CANARY, noise=3)
    (home / "replays").mkdir()
    (home / ".replayrc").write_text(f"colour = on\nreplay_dir = {home / 'replays'}\n")
    (project / "test_leaky.py").write_text(REPLAYS)
    report = hunt(ambient, home, project)
    assert not list((home / "replays").iterdir())  # the guard stopped it: nothing written
    (leak,) = report.leaks
    assert (leak.test, leak.ambient, leak.sealed) == (
        "test_leaky.py::test_records_a_replay", "failed", "passed"
    )  # fmt: skip
    assert leak.home_write == HomeWrite(
        os.path.realpath(home / "replays" / "session.json"), Factor("home", ".replayrc")
    )
    assert (leak.culprit, report.unsteady, report.reruns) == (None, (), 0)
