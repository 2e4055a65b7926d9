"""The subprocess guard, end to end: every program a test runs is named; denied ones stop."""

from __future__ import annotations

import os

import pytest

from tests.helpers import HAVE_GIT

NO_TREE_GUARD = ("--truegreen-tree-guard=off", "-p", "no:randomly")
requires_git = pytest.mark.skipif(not HAVE_GIT, reason="needs git (git --version does not run)")

GRANDCHILD = """
import subprocess
import sys
from pathlib import Path

def test_grandchild_starts_docker():
    inner = "import subprocess; subprocess.run(['docker', 'ps'])"
    outer = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {inner!r}])"
    subprocess.run([sys.executable, "-c", outer])
"""


@pytest.fixture
def fake_docker(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> str:
    """A ``docker`` on PATH that leaves a mark when it runs, so the premise can be seen."""
    bin_dir = pytester.mkdir("bin")
    mark = pytester.path / "docker-ran"
    script = bin_dir / "docker"
    script.write_text(f"#!/bin/sh\ntouch {mark}\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return str(mark)


@pytest.mark.platforms("posix")  # a shell-script stand-in for docker
def test_a_denied_program_started_by_a_python_grandchild_is_blocked(
    pytester: pytest.Pytester, fake_docker: str
) -> None:
    """Ablation: replace `program in denied` with `False` in `src/truegreen/guards/spawns.py`:
    the fake docker runs and the test passes. Restored."""
    pytester.makepyfile(GRANDCHILD)
    premise = pytester.runpytest_subprocess(*NO_TREE_GUARD, "--truegreen-set", "writes=off")
    premise.assert_outcomes(passed=1)
    assert os.path.exists(fake_docker)
    os.remove(fake_docker)

    pytester.makepyprojecttoml('[tool.truegreen]\ndeny-programs = ["docker"]\n')
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD, "--truegreen-set", "writes=off")
    result.assert_outcomes(failed=1)
    assert not os.path.exists(fake_docker)
    result.stdout.fnmatch_lines(
        ["  program: blocked start docker at <string>:1 (in child process *)"]
    )


@requires_git
def test_the_summary_names_the_programs_each_test_ran(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import subprocess

        def test_git():
            subprocess.run(["git", "-C", ".", "--no-pager", "status"], capture_output=True)
            subprocess.run("git log -1", shell=True, capture_output=True)

        def test_nothing():
            pass
        """
    )
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "programs run, by test (1 test):",
            "  test_the_summary_names*::test_git: git status, git log",
        ]
    )
