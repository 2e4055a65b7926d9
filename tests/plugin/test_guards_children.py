"""Every child process is guarded, or the run says it is not: the shim survives a test's own
PYTHONPATH, unguarded children are named, and programs that dial out are judged."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

NO_TREE_GUARD = ("--truegreen-tree-guard=off", "-p", "no:randomly")
posix = pytest.mark.platforms("posix")  # shell-script stand-ins for the programs

CHILD_WRITES = """
import os
import subprocess
import sys

WRITE = "open('child-wrote.txt', 'w').write('x')"

def test_child_writes(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", ".")
    env = {ENV}
    subprocess.run([sys.executable, "-c", WRITE], env=env, check=True)
    assert os.environ["PYTHONPATH"] == "."  # the test reads back what it set
"""


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(*NO_TREE_GUARD, *args)


def test_a_child_of_a_test_that_sets_pythonpath_is_guarded(pytester: pytest.Pytester) -> None:
    """The child inherits the environment: the shim goes into the C-level one only.

    Ablation: replace `_putenv("PYTHONPATH", wanted)` with `pass` in
    `src/truegreen/guards/children.py`."""
    pytester.makepyfile(CHILD_WRITES.replace("{ENV}", "None"))
    result = run(pytester)
    assert (pytester.path / "child-wrote.txt").exists()  # premise: the child did write
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [f"  write: did open for writing {pytester.path}/child-wrote.txt (under the project "
         "tree) at <string>:1 (in child process *)"]
    )  # fmt: skip


def test_a_child_given_an_environment_with_its_own_pythonpath_is_guarded(
    pytester: pytest.Pytester,
) -> None:
    """Ablation: replace `os.fsencode(wanted) if binary else wanted` with `current` in
    `src/truegreen/guards/children.py`."""
    pytester.makepyfile(CHILD_WRITES.replace("{ENV}", 'dict(os.environ, PYTHONPATH="src:.")'))
    result = run(pytester)
    assert (pytester.path / "child-wrote.txt").exists()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["  write: did open for writing *child-wrote.txt*(in child *)"])


def test_a_child_given_a_bare_environment_still_finds_its_run(pytester: pytest.Pytester) -> None:
    """``env={"PYTHONPATH": "."}``: no run directory, no test name, yet reported in its test.

    Ablation: replace `value is not None and name_key not in env` with `False` in
    `src/truegreen/guards/children.py`."""
    pytester.makepyfile(CHILD_WRITES.replace("{ENV}", '{"PYTHONPATH": "."}'))
    result = run(pytester)
    assert (pytester.path / "child-wrote.txt").exists()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["violations by test:", "  *::test_child_writes"])


def test_the_child_sees_the_shim_first_and_the_tests_entries_in_order(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import os
        import subprocess
        import sys

        def test_child_path(monkeypatch):
            monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["one", "two"]))
            code = "import os; print(os.environ['PYTHONPATH'])"
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
            entries = out.stdout.strip().split(os.pathsep)
            assert entries[0].endswith(os.path.join("guards", "shim")), entries
            assert entries[1:] == ["one", "two"]
        """
    )
    run(pytester).assert_outcomes(passed=1)


@posix
def test_the_summary_names_unguarded_children_per_test_grouped(
    pytester: pytest.Pytester,
) -> None:
    """Ablation: delete `guard.record_unguarded(program, why)` in
    `src/truegreen/guards/spawns.py`: no child is named.

    Ablation: replace `letter in flags` with `False` in `src/truegreen/guards/children.py`:
    the isolated Python child goes unnamed."""
    pytester.makepyfile(
        """
        import subprocess
        import sys

        def test_spawns():
            for _ in range(3):
                subprocess.run(["true"])
            subprocess.run([sys.executable, "-I", "-c", "pass"])
            subprocess.run([sys.executable, "-c", "pass"])
        """
    )
    result = run(pytester)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "unguarded child processes, by test (1 test):",
            "  *::test_spawns: true x3 (not a Python program); "
            "python* (python -I: isolated mode ignores PYTHONPATH)",
        ]
    )


def test_a_guarded_python_child_is_not_named_unguarded(pytester: pytest.Pytester) -> None:
    """Ablation: replace `children.unguarded(words, env, cwd)` with `children.NOT_PYTHON` in
    `src/truegreen/guards/spawns.py`."""
    pytester.makepyfile(
        """
        import subprocess
        import sys

        def test_spawns():
            subprocess.run([sys.executable, "-c", "pass"])
        """
    )
    result = run(pytester)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["programs run, by test (1 test):"])  # premise: it was seen
    result.stdout.no_fnmatch_line("unguarded child processes*")


@pytest.mark.platforms("linux")
def test_a_python_without_truegreen_installed_is_guarded_from_the_shims_package(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    """A virtual environment without truegreen (as pip's build isolation makes) still loads
    the guards: the shim loads the truegreen package it belongs to.

    Ablation (by hand: the shim runs before any import hook, so truegreen ablate cannot serve
    it): making ``_from_here`` return None at once lets the write pass. Restored."""
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    probe = subprocess.run([str(python), "-I", "-c", "import truegreen"], capture_output=True)
    assert probe.returncode != 0  # premise: that interpreter cannot import truegreen
    pytester.makepyfile(
        f"""
        import subprocess

        def test_child_writes():
            code = "open('child-wrote.txt', 'w').write('x')"
            subprocess.run([{str(python)!r}, "-c", code], check=True)
        """
    )
    result = run(pytester)
    assert (pytester.path / "child-wrote.txt").exists()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["  write: did open for writing *child-wrote.txt*(in child *)"])


# -- programs that dial out ---------------------------------------------------------------


@pytest.fixture
def fake_programs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """curl, wget, git, pip, ssh and scp on PATH that only leave a mark when they run: no
    real network program ever starts, whatever the guard does."""
    bin_dir = pytester.mkdir("fakebin")
    marks = pytester.mkdir("marks")
    for name in ("curl", "wget", "git", "pip", "ssh", "scp"):
        script = bin_dir / name
        script.write_text(f'#!/bin/sh\ntouch "{marks}/{name}"\n')
        script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return marks


COMMANDS = [
    ["curl", "-s", "https://example.invalid/file"],
    ["wget", "-q", "http://example.invalid/"],
    ["git", "clone", "https://example.invalid/repo.git"],
    ["git", "-C", "x", "fetch", "git@example.invalid:org/repo.git"],
    ["pip", "install", "requests"],
    ["ssh", "user@example.invalid", "true"],
    ["scp", "notes.txt", "user@example.invalid:/tmp/"],
]


@posix
@pytest.mark.parametrize("mode", ["block", "owned"])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_a_program_that_dials_out_is_refused_before_it_runs(
    pytester: pytest.Pytester, fake_programs: Path, command: list[str], mode: str
) -> None:
    """Under every mode but allow, as a connection from Python would be.

    Ablation: replace `netprograms.destinations(words, env)` with `()` in
    `src/truegreen/guards/spawns.py`."""
    pytester.makepyfile(
        f"""
        import subprocess

        def test_dials():
            subprocess.run({command!r})
        """
    )
    premise = run(pytester, "--truegreen-set", "network=allow")
    premise.assert_outcomes(passed=1)
    mark = fake_programs / command[0]
    assert mark.exists()  # premise: the stand-in runs when nothing refuses it
    mark.unlink()

    result = run(pytester, "--truegreen-set", f"network={mode}")
    result.assert_outcomes(failed=1)
    assert not mark.exists()  # refused before it ran
    result.stdout.fnmatch_lines(
        [f"*NetworkBlocked: truegreen: *::test_dials may not start {command[0]!r} to reach "
         f"*:*: not a loopback address (network = {mode!r})*"]
    )  # fmt: skip


@posix
@pytest.mark.parametrize(
    "command",
    [["git", "clone", "/srv/repo", "copy"], ["git", "clone", "file:///srv/repo"],
     ["pip", "install", "--no-index", "pkg"], ["pip", "install", "./dist/pkg-1.0.whl"],
     ["curl", "file:///etc/hostname"]],
    ids=lambda c: " ".join(c),
)  # fmt: skip
def test_a_program_on_local_paths_runs_under_block(
    pytester: pytest.Pytester, fake_programs: Path, command: list[str]
) -> None:
    """Ablation: replace `not _local(word)` with `True` in
    `src/truegreen/guards/netprograms.py`."""
    pytester.makepyfile(
        f"""
        import subprocess

        def test_local():
            subprocess.run({command!r})
        """
    )
    result = run(pytester, "--truegreen-set", "network=block")
    result.assert_outcomes(passed=1)
    assert (fake_programs / command[0]).exists()


@posix
def test_a_program_to_an_unowned_loopback_port_is_refused_under_owned(
    pytester: pytest.Pytester, fake_programs: Path
) -> None:
    """Loopback follows the mode: under owned, a port this session does not listen on is
    refused, and the test fails naming what it would have dialled.

    Ablation: replace `network.refusal(guard, host, port, "tcp")` with `None` in
    `src/truegreen/guards/spawns.py`."""
    pytester.makepyfile(
        """
        import subprocess

        def test_dials():
            subprocess.run(["curl", "-s", "http://127.0.0.1:9/health"])
        """
    )
    result = run(pytester)  # network = "owned", the default: nothing listens on port 9
    assert not (fake_programs / "curl").exists()  # refused before it ran
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["  network: blocked start curl to reach 127.0.0.1:9 (no listener started by this test "
         "session) at *"]
    )  # fmt: skip
