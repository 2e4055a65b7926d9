"""truegreen collect-gate over real temporary git repositories and a real pytest collection."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from truegreen.cli import main

BASE = {
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    'markers = ["slow: a slow test"]\n',
    "src/app.py": "def add(a, b):\n    return a + b\n",
    "tests/test_app.py": "def test_add():\n    assert 1 + 1 == 2\n",
    "tests/test_retired.py": "def test_retired():\n    assert True\n",
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid",
         "-c", "init.defaultBranch=main", *args],
        cwd=repo, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A committed project on branch main, the working directory of the test."""
    root = tmp_path / "project"
    root.mkdir()
    write(root, BASE)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    monkeypatch.chdir(root)
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)  # the command under test is ours alone
    return root


def test_changed_test_files_that_collect_pass_the_gate(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, {"tests/test_new.py": "def test_one():\n    pass\n\ndef test_two():\n    pass\n"})
    assert main(["collect-gate"]) == 0
    assert capsys.readouterr().out == (
        "collect-gate: 1 test file changed since HEAD, every one collected (2 tests)\n"
    )


def test_each_file_the_command_never_collects_is_named_with_why(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, {
        "integration/test_outside.py": "def test_x():\n    pass\n",
        "tests/check_misnamed.py": "def test_x():\n    pass\n",
        "tests/test_slow.py": "import pytest\n\npytestmark = pytest.mark.slow\n\n"
                              "def test_x():\n    pass\n",
        "tests/old/conftest.py": 'collect_ignore = ["test_skipped.py"]\n',
        "tests/old/test_skipped.py": "def test_x():\n    pass\n",
        "tests/vendor/test_vendored.py": "def test_x():\n    pass\n",
        "tests/test_broken.py": "import no_such_module\n",
        "tests/test_empty.py": "def check_x():\n    pass\n",
        "tests/test_app.py": "def test_add():\n    assert 2 + 2 == 4\n",
    })  # fmt: skip
    assert main(["collect-gate", "--", "-m", "not slow", "--ignore", "tests/vendor"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "collect-gate: 7 of 8 test files changed since HEAD collect nothing under: "
        "pytest -m 'not slow' --ignore tests/vendor",
        "  integration/test_outside.py: outside testpaths (tests)",
        "  tests/check_misnamed.py: misnamed: the name does not match python_files "
        "(test_*.py *_test.py)",
        "  tests/old/test_skipped.py: ignored: tests/old/test_skipped.py is excluded by "
        "collect_ignore or a pytest_ignore_collect hook",
        "  tests/test_broken.py: collection error: ModuleNotFoundError: No module named "
        "'no_such_module'",
        "  tests/test_empty.py: collects no tests: no function matches python_functions (test) "
        "and no class python_classes (Test)",
        "  tests/test_slow.py: deselected: all 1 of its tests by -m 'not slow'",
        "  tests/vendor/test_vendored.py: ignored: --ignore tests/vendor",
    ]


def test_commits_since_the_merge_base_count_and_deleted_or_untouched_files_do_not(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ablation: replace `"--diff-filter=d"` with `"--diff-filter=ACDMRT"`
    in `src/truegreen/runner/changes.py`."""
    git(repo, "branch", "feature")
    write(repo, {"tests/test_on_main.py": "def test_x():\n    pass\n"})
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "main moves on")
    git(repo, "checkout", "-q", "feature")
    write(repo, {"tests/test_committed.py": "def test_x():\n    pass\n"})
    git(repo, "rm", "-q", "tests/test_retired.py")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "feature")
    write(repo, {"tests/test_staged.py": "def test_x():\n    pass\n"})
    git(repo, "add", "tests/test_staged.py")
    write(repo, {"tests/test_untracked.py": "def test_x():\n    pass\n"})
    assert not (repo / "tests/test_retired.py").exists()  # premise: deleted on this branch
    assert main(["collect-gate", "--base", "main", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "format": 1,
        "base": "main",
        "pytest_args": [],
        "files": [
            {"path": "tests/test_committed.py", "collected": 1, "reason": None},
            {"path": "tests/test_staged.py", "collected": 1, "reason": None},
            {"path": "tests/test_untracked.py", "collected": 1, "reason": None},
        ],
    }


def test_a_parallel_command_is_collected_in_one_process(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, {"tests/test_new.py": "def test_one():\n    pass\n"})
    assert main(["collect-gate", "--", "-n", "2", "--dist", "loadgroup"]) == 0
    assert capsys.readouterr().out == (
        "collect-gate: 1 test file changed since HEAD, every one collected (1 test)\n"
    )


def test_changed_modules_that_are_not_tests_are_not_gated(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ablation: replace `in_tests and defines_tests(source)` with `in_tests`
    in `src/truegreen/core/collectgate.py`."""
    write(repo, {
        "tests/helpers.py": "def make_user():\n    return {}\n",
        "tests/conftest.py": "import pytest\n",
        "src/app.py": "def add(a, b):\n    return b + a\n",
    })  # fmt: skip
    assert "helpers.py" in git(repo, "status", "--porcelain", "-uall")  # premise: it changed
    assert main(["collect-gate"]) == 0
    assert capsys.readouterr().out == "collect-gate: no test file changed since HEAD\n"


def test_outside_a_git_checkout_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    assert main(["collect-gate"]) == 2
    assert capsys.readouterr().err == (
        f"truegreen: error: collect-gate: expected a git checkout, found none at "
        f"{str(tmp_path)!r}; run it inside the repository\n"
    )


def test_a_base_that_is_not_a_revision_is_a_usage_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["collect-gate", "--base", "no-such-branch"]) == 2
    assert capsys.readouterr().err == (
        "truegreen: error: collect-gate: --base expected a git revision, found "
        "'no-such-branch'; name a branch, tag or commit\n"
    )


def test_pytest_arguments_pytest_refuses_are_a_usage_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, {"tests/test_new.py": "def test_one():\n    pass\n"})
    assert main(["collect-gate", "--", "--no-such-flag"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "truegreen: error: collect-gate: expected pytest to collect with '--no-such-flag', "
        "found exit 4: "
    )
    assert "unrecognized arguments: --no-such-flag" in err
    assert err.endswith("; fix the arguments after --\n")


def test_a_real_command_exits_1_naming_the_file(repo: Path) -> None:
    write(repo, {"integration/test_outside.py": "def test_x():\n    pass\n"})
    done = subprocess.run(
        [sys.executable, "-m", "truegreen", "collect-gate", "--", "-q"],
        capture_output=True, text=True, cwd=repo, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout.splitlines() == [
        "collect-gate: 1 of 1 test file changed since HEAD collects nothing under: pytest -q",
        "  integration/test_outside.py: outside testpaths (tests)",
    ]


def test_without_git_on_path_it_is_a_usage_error(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert main(["collect-gate"]) == 2
    assert capsys.readouterr().err.startswith(
        "truegreen: error: collect-gate: expected git on PATH, found none ("
    )


def test_a_git_command_that_fails_is_a_usage_error_with_its_complaint(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / ".git" / "index").write_bytes(b"not an index")
    assert main(["collect-gate"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("truegreen: error: collect-gate: git diff failed: ")
    assert "index" in err
    assert err.count("\n") == 1  # one line, never a traceback
