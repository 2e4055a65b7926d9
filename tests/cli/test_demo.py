"""truegreen demo: the story told by four real runs of the embedded sample project."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from truegreen.cli.demo import Outcome, copy_sample, story


def test_the_demo_runs_as_a_real_command_and_tells_the_story(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "truegreen", "demo"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    plain = lines.index("1. plain pytest (-p no:truegreen)")
    sealed = lines.index("2. under truegreen")
    assert "2 passed, 1 failed" in lines[plain + 1]
    assert "wrote into HOME: .cache/greeter/history.txt" in lines[plain + 1]
    assert "failed: test_greets_by_name" in lines[plain + 2]
    assert "3 passed" in lines[plain + 3]
    assert "   -> same code, same tests, different verdicts: an ambient variable decided." in lines
    assert lines[sealed + 1].endswith("3 passed             HOME untouched")
    assert lines[sealed + 2].endswith("3 passed             HOME untouched")
    assert list(tmp_path.iterdir()) == []  # the demo writes only into its own temp directory
    assert list(Path(os.environ["HOME"]).iterdir()) == []


def test_the_sample_ships_inside_the_package(tmp_path: Path) -> None:
    copy_sample(tmp_path / "greeter")
    names = sorted(p.name for p in (tmp_path / "greeter").iterdir())
    assert names == ["greeter.py", "pyproject.toml", "test_greeter.py"]


@pytest.mark.parametrize(
    ("sealed_shell", "ok"),
    [
        (Outcome(3, [], []), True),
        (Outcome(2, [("test_greets_by_name", "assert")], []), False),
        (Outcome(3, [], [".cache/greeter/history.txt"]), False),
    ],
)
def test_the_demo_fails_when_the_sealed_runs_differ_or_write(
    sealed_shell: Outcome, ok: bool
) -> None:
    clean = Outcome(3, [], [])
    plain = Outcome(3, [], ["x"])
    lines, verdict = story(
        {
            (False, True): plain,
            (False, False): plain,
            (True, True): sealed_shell,
            (True, False): clean,
        }
    )
    assert verdict is ok
    assert (
        "truegreen did NOT seal this run as it should: please report it." in "\n".join(lines)
    ) is not ok
