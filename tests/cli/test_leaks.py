"""truegreen leaks: each differing test with its culprit and fix, never a value; usage errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import LEAKY_CULPRITS, leaky_machine
from truegreen.cli import main
from truegreen.cli.leaks import document, render
from truegreen.core.factors import Factor
from truegreen.core.leakhunt import HomeWrite, Leak, LeakReport

CANARY = "tg-canary-leaks-cli-64"
ARGS = ["--", "-p", "no:cacheprovider"]
# What this test process's own seal set, and a developer's shell does not.
UNSET = ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "USERPROFILE",
         "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")  # fmt: skip


def use_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, noise: int = 5) -> Path:
    """Make this process the fake machine's shell, inside the project; the project."""
    project, ambient, _ = leaky_machine(tmp_path, CANARY, noise)
    for name in UNSET:
        monkeypatch.delenv(name, raising=False)
    for name, value in ambient.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(project)
    return project


def test_it_names_each_culprit_and_its_fix_and_never_the_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """The failing assertion in the ambient run shows the variable's value; none of it reaches
    the terminal.

    Ablation: replace `os.path.join(scratch, "output") if capture else None` with `None` in
    `src/truegreen/runner/process.py`.
    """
    use_machine(tmp_path, monkeypatch)
    status = main(["leaks", *ARGS])
    out, err = capfd.readouterr()
    assert os.environ["MYAPP_MODE"] == CANARY  # premise: the shell holds the value
    assert CANARY not in out + err
    assert status == 1
    blocks = out.split("\n\n")
    assert blocks[0].startswith("truegreen leaks: 3 of 4 tests differ between the ambient and ")
    assert blocks[1:] == [
        "test_leaky.py::test_mode_defaults_to_modern\n"
        "  ambient: failed, sealed: passed\n"
        "  culprit: variable MYAPP_MODE\n"
        "  fix: declare MYAPP_MODE in clear-env (or its prefix in clear-env-prefixes) in "
        "[tool.truegreen] and set it inside the tests that need it; or pass it with "
        "--keep-env MYAPP_MODE if the suite is meant to see it",
        "test_leaky.py::test_the_epoch_is_midnight\n"
        "  ambient: failed, sealed: passed\n"
        "  culprit: time zone (TZ)\n"
        "  fix: establish the zone inside the test (monkeypatch.setenv('TZ', ...) and "
        "time.tzset()), and compute zone-dependent values there, not at import",
        "test_leaky.py::test_without_an_identity_there_is_no_author\n"
        "  ambient: failed, sealed: passed\n"
        "  culprit: ~/.gitconfig\n"
        "  fix: establish the git identity inside the test: hermetic.git_identity(name, email) "
        "(docs/hermetic.md)\n",
    ]
    assert "truegreen leaks: rerun 1: 3 tests (" in err


def test_a_suite_without_leaks_exits_0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ablation: replace `ambient.of(name) != sealed.of(name)` with `True` in
    `src/truegreen/core/outcomes.py`."""
    project = use_machine(tmp_path, monkeypatch)
    (project / "test_leaky.py").write_text("def test_arithmetic():\n    assert 1 + 1 == 2\n")
    status = main(["leaks", *ARGS])
    out = capsys.readouterr().out
    assert out.startswith("truegreen leaks: no test differs between the ambient and the sealed "
                          "run (1 test, ")  # fmt: skip
    assert status == 0


def test_a_kept_variable_is_no_leak(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ablation: replace `sealed_environment(ambient, home, keep)` with
    `sealed_environment(ambient, home)` in `src/truegreen/cli/leaks.py`."""
    project = use_machine(tmp_path, monkeypatch)
    (project / "test_leaky.py").write_text(
        "import os\n\ndef test_mode_is_legacy():\n    assert 'MYAPP_MODE' in os.environ\n"
    )
    assert main(["leaks", "--format", "json", *ARGS]) == 1  # premise: sealed, it differs
    assert capsys.readouterr().out.count('"test": "test_leaky.py::test_mode_is_legacy"') == 1
    assert main(["leaks", "--keep-env", "MYAPP_MODE", "--format", "json", *ARGS]) == 0
    assert json.loads(capsys.readouterr().out)["leaks"] == []


def test_json_from_a_real_process_names_the_culprits_and_holds_no_value(tmp_path: Path) -> None:
    project, ambient, _ = leaky_machine(tmp_path, CANARY)
    done = subprocess.run([sys.executable, "-m", "truegreen", "leaks", "--format", "json", *ARGS],
                          cwd=project, env=ambient, capture_output=True, text=True,
                          check=False)  # fmt: skip
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    assert data["format"] == 1
    culprits = {leak["test"]: [c["label"] for c in leak["culprit"]] for leak in data["leaks"]}
    assert culprits == LEAKY_CULPRITS
    assert data["tests"] == 4
    assert data["reruns"] <= 3 * (2 * 6 + 4)
    assert CANARY not in done.stdout + done.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--keep-env", "MYAPP_MODE=" + CANARY], "truegreen leaks: --keep-env takes a variable "
         "name, like --keep-env MYAPP_URL (got 'MYAPP_MODE=...')"),
        (["--keep-env", ""], "truegreen leaks: --keep-env takes a variable name, like "
         "--keep-env MYAPP_URL (got '')"),
        (["--format", "xml"], "truegreen leaks: argument --format: invalid choice: 'xml' "
         "(choose from "),
    ],
)  # fmt: skip
def test_a_bad_command_line_is_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["leaks", *argv, *ARGS]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"truegreen: error: {message}")
    assert captured.err.count("\n") == 1
    assert CANARY not in captured.err


def test_a_selection_without_tests_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    use_machine(tmp_path, monkeypatch)
    assert main(["leaks", *ARGS, "-k", "no_such_test"]) == 2
    last = capsys.readouterr().err.splitlines()[-1]
    expected = (
        r"truegreen: error: truegreen leaks: expected the ambient run to run tests, found none "
        r"\(pytest exit \d\); check PYTEST_ARGS"
    )
    assert re.fullmatch(expected, last), last


def test_a_run_without_the_plugin_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    use_machine(tmp_path, monkeypatch)
    assert main(["leaks", *ARGS, "-p", "no:truegreen"]) == 2
    assert capsys.readouterr().err == (
        "truegreen: error: truegreen leaks: expected pytest to run '-p no:cacheprovider -p "
        "no:truegreen' and record its event stream with the truegreen plugin on (no -p "
        "no:truegreen, no enabled = false), found exit 4: run pytest with them to see why\n"
    )


def test_flakes_are_listed_apart_from_leaks() -> None:
    report = LeakReport(4, 7, (), 1, (), ("test_x.py::test_every_other_run",))
    assert render(report).splitlines() == [
        "truegreen leaks: no test differs between the ambient and the sealed run "
        "(4 tests, 7 ambient factors)",
        "",
        "1 test differed once but not when the run was repeated: a flake, not a leak "
        "(truegreen flakes):",
        "  test_x.py::test_every_other_run",
    ]
    assert document(report)["unsteady"] == ["test_x.py::test_every_other_run"]


def test_an_unconfirmed_culprit_is_a_lead_with_no_fix() -> None:
    """Ablation: replace `not leak.confirmed` with `False` in `src/truegreen/cli/leaks.py`."""
    logname = Factor("variable", "LOGNAME")
    leak = Leak("test_x.py::test_victim_2", "failed", "passed", (logname,), confirmed=False)
    report = LeakReport(7, 5, (), 6, (leak,))
    assert logname.fix.startswith("declare LOGNAME")  # premise: a confirmed one has this fix
    assert render(report).splitlines()[2:] == [
        "test_x.py::test_victim_2",
        "  ambient: failed, sealed: passed",
        "  culprit: not confirmed; the search ended on variable LOGNAME, but the whole sealed "
        "run with it applied does not give the test its ambient outcome (failed) again: it "
        "depends on order or chance (try truegreen flakes), not on this factor",
    ]
    assert document(report)["leaks"][0]["confirmed"] is False


def test_a_write_into_the_real_home_is_named_with_the_way_there() -> None:
    written = HomeWrite("/home/dev/replays/session.json", Factor("home", ".replayrc"))
    leak = Leak("test_r.py::test_records_a_replay", "failed", "passed", None, True, written)
    report = LeakReport(3, 9, (), 0, (leak,))
    assert render(report).splitlines()[4:] == [
        "  differs by a write into the real home: /home/dev/replays/session.json, reached "
        "through ~/.replayrc",
        "  why: the ambient run's write guard (home-writes) stopped the write into your home, "
        "and a rerun in a temporary home cannot make it again",
        "  fix: establish ~/.replayrc inside the test (hermetic.home_file), naming a path under "
        "tmp_path",
    ]
    assert document(report)["leaks"][0]["home_write"] == {
        "path": "/home/dev/replays/session.json",
        "through": {"kind": "home", "name": ".replayrc", "label": "~/.replayrc",
                    "fix": Factor("home", ".replayrc").fix},
    }  # fmt: skip
    nowhere = Leak(leak.test, "failed", "passed", None, True, HomeWrite(written.path, None))
    assert render(LeakReport(3, 9, (), 0, (nowhere,))).splitlines()[4] == (
        "  differs by a write into the real home: /home/dev/replays/session.json"
    )


def test_a_test_after_a_write_into_the_real_home_points_at_it() -> None:
    leak = Leak("test_r.py::test_b", "failed", "passed", None, after_home_write="test_r.py::test_a")
    assert render(LeakReport(3, 9, (), 2, (leak,))).splitlines()[4] == (
        "  culprit: none of the ambient factors; it ran after test_r.py::test_a, which the "
        "ambient run failed for writing into the real home: it may depend on what that write "
        "would have left (fix that test first)"
    )
