"""truegreen demo: each section keeps its promise on the embedded sample, run for real."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from truegreen.cli import main
from truegreen.cli.demo import install_command
from truegreen.demo import stage as demo_stage
from truegreen.demo.model import Shown
from truegreen.demo.sections import NAMES
from truegreen.demo.stage import copy_sample


def _play(capsys: pytest.CaptureFixture[str], *words: str) -> tuple[int, list[str]]:
    status = main(["demo", *words])
    return status, capsys.readouterr().out.splitlines()


def _block(lines: list[str], name: str) -> list[str]:
    """The lines of one section: from its heading to the next blank line."""
    start = next(i for i, line in enumerate(lines) if re.match(rf"\[\d+/\d+\] {name}: ", line))
    end = lines.index("", start) if "" in lines[start:] else len(lines)
    return lines[start:end]


def test_the_demo_runs_as_a_real_command_and_every_section_behaves(tmp_path: Path) -> None:
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "truegreen", "demo"],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    headings = [line.split(":")[0] for line in lines if re.match(r"\[\d+/11\] ", line)]
    assert headings == [f"[{i}/11] {name}" for i, name in enumerate(NAMES, 1)]
    assert sum(line.startswith("   -> proved: ") for line in lines) == 11
    closing = [line for line in lines if line.startswith("truegreen demo: all ")]
    assert len(closing) == 1
    assert re.fullmatch(
        r"truegreen demo: all 11 sections behaved as promised \(\d+\.\ds\)\.", closing[0]
    )
    assert f"its tests run in: {install_command()}" in done.stdout
    assert list(cwd.iterdir()) == []  # the demo writes only into its own temporary directory
    assert list(Path(os.environ["HOME"]).iterdir()) == []


def test_the_hermetic_section_shows_two_verdicts_plain_and_one_sealed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, lines = _play(capsys, "hermetic")
    shown = _block(lines, "hermetic")
    assert status == 0, "\n".join(lines)
    runs = [
        line.split(":", 1)[1].strip() for line in shown if line.startswith(("    your", "    a "))
    ]
    assert [re.sub(r"\s{2,}", " | ", run) for run in runs] == [
        "2 passed, 1 failed | wrote into HOME: .cache/greeter/history.txt",
        "3 passed | wrote into HOME: .cache/greeter/history.txt",
        "3 passed | HOME untouched",
        "3 passed | HOME untouched",
    ]
    failed = "failed: test_greets_by_name  (AssertionError: assert 'HELLO, ADA!' == 'Hello, Ada.')"
    assert failed in [line.strip() for line in shown]


def test_the_guards_section_fails_a_write_into_the_repo_and_the_home_and_a_dial_to_a_daemon(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, lines = _play(capsys, "guards")
    shown = "\n".join(_block(lines, "guards"))
    assert status == 0, "\n".join(lines)
    port = re.search(
        r"\$ HISTORY_CACHE=~/\.greeter-cache GREETING_SERVICE=127\.0\.0\.1:(\d+) pytest "
        r"caught/test_guards\.py",
        shown,
    )
    assert port is not None
    assert "write: did open for writing caught/report.txt (under the project tree)" in shown
    assert "write: blocked open for writing ~/.greeter-cache (under the real home)" in shown
    assert f"network: blocked connect to 127.0.0.1:{port.group(1)} (no listener" in shown
    assert re.search(r"^    3 failed in ", shown, re.M)


def test_the_hints_section_names_the_missing_rc_file(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = _play(capsys, "hints")
    shown = _block(lines, "hints")
    assert status == 0, "\n".join(lines)
    hint = [line.strip() for line in shown if "truegreen hint:" in line]
    assert hint == [
        "truegreen hint: it read ~/.greeterrc, absent from its sealed home (every test starts "
        'with an empty one); establish it in the test: hermetic.home_file(".greeterrc", ...)'
    ]


def test_the_audit_section_finds_a_sleep_and_a_test_without_assertion(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, lines = _play(capsys, "audit")
    found = re.findall(r"^    (\S+):\d+:\d+: (TG\d+ \S+)", "\n".join(lines), re.M)
    assert status == 0, "\n".join(lines)
    assert found == [
        ("caught/test_guards.py", "TG402 sleep-in-test"),
        ("tests/test_nicknames.py", "TG105 no-assertion"),
    ]


def test_the_ablate_section_kills_one_record_and_one_survives(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, lines = _play(capsys, "ablate")
    verdicts = re.findall(
        r"^      (killed|survived): tests/test_bad_names\.py::(\w+)", "\n".join(lines), re.M
    )
    assert status == 0, "\n".join(lines)
    assert verdicts == [
        ("killed", "test_a_name_on_two_lines_is_refused"),
        ("survived", "test_an_empty_name_is_refused"),
    ]  # fmt: skip


def test_the_discover_section_kills_one_unrecorded_test_and_names_the_survivors_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, lines = _play(capsys, "discover")
    shown = [line.strip() for line in _block(lines, "discover")]
    assert status == 0, "\n".join(lines)
    assert shown[1] == "$ truegreen ablate --discover unrecorded"
    rows = [line.split()[:2] for line in shown if re.match(r"unrecorded/\S+\w ", line)]
    assert rows == [
        ["unrecorded/test_refusals.py::test_a_tab_is_refused", "killed"],
        ["unrecorded/test_refusals.py::test_a_missing_name_is_refused", "survived"],
    ]
    gate = 'raise ValueError("no name")'
    copy_sample(tmp_path / "greeter")
    source = (tmp_path / "greeter" / "greeter.py").read_text(encoding="utf-8")
    line = [n for n, text in enumerate(source.splitlines(), 1) if text.strip() == gate]
    assert (
        "unrecorded/test_refusals.py::test_a_missing_name_is_refused: should fail without "
        f"greeter.py:{line[0]} `{gate}` (replace `not name` with `False`)"
    ) in shown
    closing = "2 negative tests (of 2 passing), 2 claims derived: 1 killed, 1 survived, 0 "
    assert [line for line in shown if line.startswith("2 negative tests")] == [
        closing + "caught exceptions with no claim"
    ]


def test_the_leaks_section_names_the_variable(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = _play(capsys, "leaks")
    shown = [line.strip() for line in _block(lines, "leaks")]
    assert status == 0, "\n".join(lines)
    assert shown[1] == "$ FAREWELL_WORD=Cheerio truegreen leaks -- tests"
    at = shown.index("tests/test_farewell.py::test_says_goodbye")
    expected = ["ambient: failed, sealed: passed", "culprit: variable FAREWELL_WORD"]
    assert shown[at + 1 : at + 3] == expected


def test_the_flakes_section_names_the_polluter(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = _play(capsys, "flakes")
    shown = [line.strip() for line in _block(lines, "flakes")]
    assert status == 0, "\n".join(lines)
    victim = [line for line in shown if line.startswith("victim ")]
    assert victim[0].split()[1] == "tests/test_nicknames.py::test_greets_linus_by_his_name"
    assert "polluter: tests/test_nicknames.py::test_a_nickname_can_be_given" in shown


def test_the_run_section_runs_each_file_alone_and_sums_up_its_metrics(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, lines = _play(capsys, "run")
    shown = [line.strip() for line in _block(lines, "run")]
    assert status == 0, "\n".join(lines)
    assert re.fullmatch(r"8 passed in \d+\.\d+s \(4 files, one process each\)", shown[2])
    assert shown[3] == "$ truegreen metrics .metrics"
    assert re.fullmatch(r"truegreen metrics: 8 tests \(8 passed\), run \S+", shown[4]), shown
    # the four file sessions are one run, so the figures are of 8 tests in 4 processes
    assert any(line.endswith("summed over 4 processes") for line in shown[5:]), shown


def test_the_shards_section_verifies_two_shards(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = _play(capsys, "shards")
    shown = [line.strip() for line in _block(lines, "shards")]
    assert status == 0, "\n".join(lines)
    selected = [sum(map(int, re.findall(r"(\d+) (?:passed|deselected)", s))) for s in shown[2:5:2]]
    assert selected == [8, 8]
    assert "ok   every test ran in a shard (8 tests)" in shown
    assert [line for line in shown if line.startswith("FAIL")] == []


def test_the_demo_leaves_nothing_in_the_temporary_directory(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The copies, homes and temporary files of every section go when the demo ends.

    Ablation: delete `shutil.rmtree(workdir, ignore_errors=True)` in `src/truegreen/cli/demo.py`.
    """
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert _play(capsys, "audit", "--keep")[0] == 0
    kept = list(tmp_path.iterdir())
    assert [p.name[:15] for p in kept] == ["truegreen-demo-"]  # premise: the demo works in there
    shutil.rmtree(kept[0])
    assert _play(capsys, "audit")[0] == 0
    assert list(tmp_path.iterdir()) == []


def test_a_section_that_did_not_behave_fails_the_demo_and_is_named(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def play(section: object, root: Path) -> Shown:
        ok = getattr(section, "name", "") != "guards"
        return Shown(("$ pytest caught/test_guards.py",), "expected 3 failed tests", ok)

    monkeypatch.setattr(demo_stage, "play", play)
    status, lines = _play(capsys, "audit", "guards")
    assert status == 1
    assert "   !! NOT AS PROMISED: expected 3 failed tests" in lines
    assert lines[-1] == (
        "truegreen demo: 1 of 2 sections did NOT behave as promised: guards. Please report it."
    )


def test_list_names_every_section_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines = _play(capsys, "--list")
    assert status == 0
    assert [line.split()[0] for line in lines] == list(NAMES)


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["nope"], "truegreen: error: truegreen demo: expected sections among hermetic, "
                   "guards, hints, audit, ablate, discover, leaks, flakes, run, shards, diff (got "
                   "'nope'); "
                   "truegreen demo --list describes them"),
        (["--list", "guards"], "truegreen: error: truegreen demo --list takes no SECTION "
                               "(got 'guards')"),
        (["--jobs", "0"], "truegreen: error: truegreen demo: argument -j/--jobs: expected a "
                          "whole number of at least 1, found '0'"),
    ],
)  # fmt: skip
def test_a_usage_error_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], words: list[str], message: str
) -> None:
    status = main(["demo", *words])
    assert (status, capsys.readouterr().err) == (2, message + "\n")


def test_the_diff_section_names_the_program_a_flipped_default_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, lines = _play(capsys, "diff")
    shown = [line.strip() for line in _block(lines, "diff")]
    assert status == 0, "\n".join(lines)
    assert shown[1] == "$ pytest --truegreen-metrics=.metrics-base changed"
    assert shown[3] == "$ ARCHIVER_VERSION=2 pytest --truegreen-metrics=.metrics-head changed"
    assert [re.sub(r" in \S+s$", "", line) for line in (shown[2], shown[4])] == ["1 passed"] * 2
    assert shown[5] == "$ truegreen diff .metrics-base .metrics-head --fail-on new-programs"
    assert "changed/test_archive.py::test_a_greeting_is_archived: + git init" in shown
    assert "failed on: new-programs (1)" in shown


def test_the_sample_ships_inside_the_package(tmp_path: Path) -> None:
    copy_sample(tmp_path / "greeter")
    names = sorted(
        p.relative_to(tmp_path / "greeter").as_posix() for p in (tmp_path / "greeter").rglob("*.*")
    )
    assert names == [
        "caught/test_guards.py",
        "caught/test_settings.py",
        "changed/test_archive.py",
        "greeter.py",
        "pyproject.toml",
        "tests/test_bad_names.py",
        "tests/test_farewell.py",
        "tests/test_greeter.py",
        "tests/test_nicknames.py",
        "unrecorded/test_refusals.py",
    ]  # fmt: skip


def test_a_command_gets_its_home_its_temporary_directory_and_a_short_list_from_the_shell(
    tmp_path: Path,
) -> None:
    shell = {
        "PATH": "/usr/bin",
        "VIRTUAL_ENV": "/venv",
        "GREETER_STYLE": "shout",
        "AWS_SECRET_ACCESS_KEY": "secret",
        "PYTEST_ADDOPTS": "-x",
        "HOME": "/home/dev",
    }
    actual = demo_stage.environment(shell, tmp_path / "home", tmp_path / "tmp", {"A": "1"})
    home, tmp = str(tmp_path / "home"), str(tmp_path / "tmp")
    assert actual == {
        "PATH": "/usr/bin",
        "VIRTUAL_ENV": "/venv",
        "HOME": home,
        "USERPROFILE": home,
        "TMPDIR": tmp,
        "TEMP": tmp,
        "TMP": tmp,
        "TZ": "UTC",
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "A": "1",
    }


class _Installed:
    """A distribution as importlib.metadata gives it, with the direct_url.json pip wrote."""

    def __init__(self, direct_url: str | None) -> None:
        self.direct_url = direct_url

    def read_text(self, name: str) -> str | None:
        return self.direct_url if name == "direct_url.json" else None


@pytest.mark.parametrize(
    ("direct_url", "command"),
    [
        ('{"url": "file:///home/ada/src/truegreen", "dir_info": {"editable": true}}',
         "pip install /home/ada/src/truegreen"),
        ('{"url": "file:///tmp/dist/truegreen-0.1.0-py3-none-any.whl", "archive_info": {}}',
         "pip install /tmp/dist/truegreen-0.1.0-py3-none-any.whl"),
        ('{"url": "https://github.com/truegreen/truegreen", "vcs_info": {"vcs": "git", '
         '"commit_id": "abc"}}', "pip install git+https://github.com/truegreen/truegreen"),
        (None, "pip install truegreen"),
        ("{not json", "pip install truegreen"),
    ],
    ids=["checkout", "wheel", "git", "index", "unreadable"],
)  # fmt: skip
def test_the_closing_advice_installs_from_where_this_truegreen_came_from(
    direct_url: str | None, command: str
) -> None:
    """truegreen is not on the package index yet: "pip install truegreen" would fail for a
    user who installed it from a checkout, so the demo names that checkout."""
    assert install_command(_Installed(direct_url)) == command
