"""Failure hints: a failing sealed test's report says what the seal took away, and the fix."""

from __future__ import annotations

import shutil

import pytest

NO_TREE_GUARD = ("--truegreen-tree-guard=off", "-p", "no:randomly")
requires_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

RC_FIXTURE = """
from pathlib import Path

import pytest

@pytest.fixture
def settings():
    return (Path.home() / ".myapprc").read_text()

def test_loads_settings(settings):
    assert "mode" in settings
"""

# user.useConfigOnly: git may not guess an identity from the host name, on any machine.
COMMITS = """
import subprocess
import sys

COMMIT = ["git", "-c", "user.useConfigOnly=true", "commit", "-q", "--allow-empty", "-m", "x"]

def test_commits(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(COMMIT, cwd=tmp_path, check=True, capture_output=True)

def test_commits_from_a_python_child(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    code = f"import subprocess; subprocess.run({COMMIT!r}, check=True)"
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=True)
"""

ESTABLISHED = """
import os
import subprocess
from pathlib import Path

def commit(repo):
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "--allow-empty", "-m", "x"],
                   check=True, capture_output=True)

def test_establishes_all_it_needs(hermetic, monkeypatch, tmp_path):
    hermetic.home_file(".myapprc", "mode = test\\n")
    assert (Path.home() / ".myapprc").read_text() == "mode = test\\n"
    hermetic.git_identity()
    commit(tmp_path)
    monkeypatch.setenv("MYAPP_MODE", "test")
    assert os.environ["MYAPP_MODE"] == "test"
    assert os.environ.get("NOT_SET_ANYWHERE") is None
    assert False, "deliberately, after everything it needed worked"

def test_names_itself_in_the_repository(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for key, value in (("user.name", "Repo Author"), ("user.email", "repo@example.invalid")):
        subprocess.run(["git", "-C", str(tmp_path), "config", key, value], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "commit", "-q", "--allow-empty", "-m", "x"],
                   check=True, capture_output=True)
    assert False, "deliberately, after the commit worked"
"""


def test_a_fixture_reading_a_missing_rc_file_gets_the_home_file_hint(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(RC_FIXTURE)
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD, "--junitxml=report.xml")
    result.assert_outcomes(errors=1)
    hint = (
        "truegreen hint: it read ~/.myapprc, absent from its sealed home (every test starts "
        'with an empty one); establish it in the test: hermetic.home_file(".myapprc", ...)'
    )
    result.stdout.fnmatch_lines(["*FileNotFoundError*", "*- truegreen hint -*", hint])
    assert hint in (pytester.path / "report.xml").read_text(encoding="utf-8")


@requires_git
def test_a_commit_with_no_identity_gets_the_git_identity_hint(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(COMMITS)
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD)
    result.assert_outcomes(failed=2)
    hint = (
        "truegreen hint: it ran git commit with no git identity (the seal configures none); "
        "give it one in the test: hermetic.git_identity()"
    )
    result.stdout.fnmatch_lines(["*_ test_commits _*", "*CalledProcessError*", hint])
    result.stdout.fnmatch_lines(["*_ test_commits_from_a_python_child _*", hint])
    result.stdout.fnmatch_lines(["fatal: no email was given and auto-detection is disabled"])
    assert result.stdout.str().count(hint) == 2


def test_a_read_of_a_cleared_declared_variable_gets_the_declare_hint(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MYAPP_MODE", "fast")
    monkeypatch.setenv("OTHER_LEVEL", "3")
    pytester.makepyprojecttoml(
        '[tool.truegreen]\nclear-env = ["MYAPP_MODE"]\nclear-env-prefixes = ["OTHER_"]\n'
    )
    pytester.makepyfile(
        """
        import os

        def test_reads_its_mode():
            assert os.getenv("MYAPP_MODE") == "fast"

        def test_reads_its_level():
            assert "OTHER_LEVEL" in os.environ
        """
    )
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "truegreen hint: it read MYAPP_MODE, which the seal cleared (clear-env); declare it "
            "with set-env or keep-env in [tool.truegreen], or set it in the test: "
            'monkeypatch.setenv("MYAPP_MODE", ...)',
            "truegreen hint: it read OTHER_LEVEL, which the seal cleared (clear-env-prefixes "
            "OTHER_); declare it with set-env or keep-env in [tool.truegreen], or set it in the "
            'test: monkeypatch.setenv("OTHER_LEVEL", ...)',
        ]
    )


def test_a_passing_test_that_reached_for_the_same_shows_no_hint(
    pytester: pytest.Pytester,
) -> None:
    """Ablation: replace `not report.failed` with `False` in `src/truegreen/plugin/hints.py`."""
    pytester.makepyfile(
        """
        from pathlib import Path

        def read_rc():
            try:
                return (Path.home() / ".myapprc").read_text()
            except FileNotFoundError:
                return None

        def test_falls_back_without_rc():
            assert read_rc() is None

        def test_fails_without_rc():
            assert read_rc() is not None
        """
    )
    # -rP prints the passing test's report sections too, where a hint would show.
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD, "-rP")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*_ test_fails_without_rc _*", "truegreen hint: it read ~/.myapprc*"]
    )
    assert result.stdout.str().count("truegreen hint: ") == 1


@requires_git
def test_a_failing_test_that_established_what_it_needed_shows_no_hint(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rc file, the identity (given by the hermetic fixture, or in the repository) and the
    variable were there when the test reached for them; it failed for its own reasons.

    Ablation: replace `not os.path.exists(path)` with `True` in
    `src/truegreen/plugin/hints.py`.

    Ablation: replace `env.get("GIT_CONFIG_GLOBAL") != devnull` with `False` in
    `src/truegreen/guards/identity.py`.

    Ablation: replace `names_a_user(handle.read())` with `False` in
    `src/truegreen/guards/identity.py`.

    Ablation: replace `key in watch.names` with `True` in `src/truegreen/plugin/ambient.py`.

    Ablation: replace `name not in os.environ` with `True` in `src/truegreen/plugin/hints.py`.
    """
    monkeypatch.setenv("MYAPP_MODE", "fast")
    pytester.makepyprojecttoml('[tool.truegreen]\nclear-env = ["MYAPP_MODE"]\n')
    pytester.makepyfile(ESTABLISHED)
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "E       AssertionError: deliberately, after everything it needed worked",
            "E       AssertionError: deliberately, after the commit worked",
        ]
    )
    assert "truegreen hint" not in result.stdout.str()
