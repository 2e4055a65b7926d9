"""truegreen platforms: the files each OS lane imports, over a fixture tree."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from truegreen.cli import main

TREE = {
    "tests/test_linux.py": "import pytest\n\n@pytest.mark.platforms('linux')\ndef test_a(): 0\n",
    "tests/unit/test_posix.py": "import pytest\n\npytestmark = pytest.mark.platforms('posix')\n",
    "tests/test_not_linux.py": (
        "from pytest import mark\n\n@mark.platforms('not linux', arch='arm64')\ndef test_b(): 0\n"
    ),
    "tests/test_windows.py": (
        "import pytest\n\n@pytest.mark.platforms('windows')\ndef test_c(): 0\n"
    ),
    "tests/test_plain.py": "def test_d(): 0\n",
    "tests/helpers.py": "import pytest\n\nX = pytest.mark.platforms('linux')\n",
    ".venv/lib/test_vendored.py": "import pytest\n\n@pytest.mark.platforms('linux')\ndef t(): 0\n",
}


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, text in TREE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--os", "linux"], ["tests/test_linux.py", "tests/unit/test_posix.py"]),
        (["--os", "macos"], ["tests/test_not_linux.py", "tests/unit/test_posix.py"]),
        (["--os", "windows"], ["tests/test_not_linux.py", "tests/test_windows.py"]),
        (["--os", "windows", "--arch", "amd64"], ["tests/test_windows.py"]),
        (
            ["--os", "windows", "--arch", "aarch64"],
            ["tests/test_not_linux.py", "tests/test_windows.py"],
        ),
        (
            ["--os", "macos", "--all"],
            ["tests/test_not_linux.py", "tests/test_plain.py", "tests/unit/test_posix.py"],
        ),
    ],
)
def test_each_lane_lists_the_files_its_markers_reach(
    tree: Path, capsys: pytest.CaptureFixture[str], argv: list[str], expected: list[str]
) -> None:
    assert main(["platforms", *argv]) == 0
    assert capsys.readouterr().out.splitlines() == expected


def test_json_and_a_real_command(tree: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "truegreen", "platforms", "--os", "linux", "tests",
         "--format", "json"],
        capture_output=True, text=True, cwd=tree, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "format": 1,
        "os": "linux",
        "arch": None,
        "files": ["tests/test_linux.py", "tests/unit/test_posix.py"],
    }


def test_a_bad_os_is_a_usage_error(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["platforms", "--os", "linx"]) == 2
    assert "invalid choice: 'linx'" in capsys.readouterr().err


def test_a_missing_path_is_a_usage_error(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["platforms", "--os", "linux", "nope"]) == 2
    assert capsys.readouterr().err == (
        "truegreen: error: truegreen platforms: expected a readable file or directory, found nope "
        "(no such file or directory)\n"
    )


def test_a_misspelt_arch_is_a_usage_error(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["platforms", "--os", "linux", "--arch", "amd46"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "found 'amd46' (did you mean 'amd64'?)" in err
