"""The tree guard, end to end: a real pytest in a subprocess, inside a real git checkout."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import HAVE_GIT, ambient_home

pytestmark = pytest.mark.skipif(not HAVE_GIT, reason="needs git (git --version does not run)")

# The write guard would fail these tests for writing into the project tree on its own;
# switched off, what fails them is the tree guard alone.
INNER = ("--truegreen-set", "writes=off")

WRITES_NOTES = """
from pathlib import Path

HERE = Path(__file__).parent


def test_writes_notes():
    (HERE / "notes.txt").write_text("left behind")
"""


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)
    return done.stdout


def status(repo: Path, *, basetemp: bool = False) -> set[str]:
    """git status lines; without ``basetemp``, none under the inner run's ``runpytest-N``."""
    out = git(repo, "status", "--porcelain=v1", "--untracked-files=all")
    return {line for line in out.splitlines() if basetemp or "runpytest-" not in line[3:]}


def untracked(repo: Path, *, basetemp: bool = False) -> set[str]:
    return {line[3:] for line in status(repo, basetemp=basetemp) if line.startswith("?? ")}


def make_repo(pytester: pytest.Pytester, *, ignore_bytecode: bool = True, **files: str) -> Path:
    """pytester's directory as a checkout: ``files`` committed, nothing dirty."""
    repo = pytester.path
    pytester.makepyfile(**files)
    # pytester writes the inner run's output beside it, and Python its bytecode unless the
    # ambient PYTHONDONTWRITEBYTECODE says otherwise: that is the harness, not a test.
    ignored = "/stdout\n/stderr\n/runpytest-current\n"
    (repo / ".gitignore").write_text(ignored + ("__pycache__/\n" if ignore_bytecode else ""))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "Fixture Author")  # the suite has no global identity
    git(repo, "config", "user.email", "fixture@example.invalid")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    return repo


def test_session_fails_a_run_that_leaves_an_untracked_file(pytester: pytest.Pytester) -> None:
    repo = make_repo(pytester, test_leaves=WRITES_NOTES)
    # Premise: the test passes on its own, and it does leave the file.
    plain = pytester.runpytest_subprocess(*INNER, "--truegreen-tree-guard=off")
    assert plain.ret == pytest.ExitCode.OK
    assert untracked(repo) == {"notes.txt"}
    (repo / "notes.txt").unlink()

    result = pytester.runpytest_subprocess(*INNER)

    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "truegreen tree guard: session (git status before and after the run)",
            "*- truegreen tree guard -*",
            "the working tree changed during the run (git status before and after):",
            "  new untracked file: notes.txt",
            "the run fails; --truegreen-tree-guard=each names the test that did it; "
            "a path a test may write belongs in .gitignore",
        ]
    )


EACH = """
from pathlib import Path

HERE = Path(__file__).parent


def test_clean_before():
    pass


def test_writes_notes():
    (HERE / "notes.txt").write_text("left behind")


def test_clean_after():
    pass
"""


@pytest.mark.parametrize("how", ["flag", "env"])
def test_each_fails_the_test_that_changed_the_tree_and_only_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """Ablation: replace `after, None` with `before, None` in `src/truegreen/plugin/treeguard.py`:
    `test_clean_after` is blamed for `notes.txt` too. Restored."""
    make_repo(pytester, test_each=EACH)
    args = [*INNER]
    if how == "flag":
        args.append("--truegreen-tree-guard=each")
    else:
        monkeypatch.setenv("TRUEGREEN_TREE_GUARD", "each")

    result = pytester.runpytest_subprocess(*args)

    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(
        [
            "truegreen tree guard: each (git status around every test)",
            "*ERROR at teardown of test_writes_notes*",
            "test_each.py::test_writes_notes changed the working tree:",
            "  new untracked file: notes.txt",
            "*- truegreen tree guard -*",
            "test_each.py::test_writes_notes changed the working tree:",
            "  new untracked file: notes.txt",
            "the run fails; a path a test may write belongs in .gitignore",
            "ERROR test_each.py::test_writes_notes*",
        ]
    )
    assert "test_clean_before changed" not in result.stdout.str()
    assert "test_clean_after changed" not in result.stdout.str()
    assert "outside any test" not in result.stdout.str()


APPENDS = """
from pathlib import Path

HERE = Path(__file__).parent


def test_appends():
    with open(HERE / "{name}", "a") as handle:
        handle.write("and more")
"""


@pytest.mark.parametrize(("name", "was"), [("data.txt", "modified"), ("scratch.txt", "untracked")])
def test_a_file_already_dirty_and_changed_further_is_caught(
    pytester: pytest.Pytester, name: str, was: str
) -> None:
    repo = make_repo(pytester, test_appends=APPENDS.format(name=name))
    (repo / "data.txt").write_text("committed\n")
    git(repo, "add", "data.txt")
    git(repo, "commit", "-q", "-m", "data")
    (repo / "data.txt").write_text("committed\nand edited by the developer\n")
    (repo / "scratch.txt").write_text("the developer's notes\n")

    result = pytester.runpytest_subprocess(*INNER)

    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([f"  changed further (already {was} before): {name}"])


LEAVES_ALONE = """
def test_reads_nothing():
    pass
"""


def test_a_file_already_dirty_and_left_alone_is_not_reported(pytester: pytest.Pytester) -> None:
    """Ablation: replace `before.fingerprints.get(path) != after.fingerprints.get(path)` with
    `True` in `src/truegreen/core/gitstatus.py`: `data.txt` and `scratch.txt` are reported.
    Restored."""
    repo = make_repo(pytester, test_alone=LEAVES_ALONE)
    (repo / "data.txt").write_text("committed\n")
    git(repo, "add", "data.txt")
    git(repo, "commit", "-q", "-m", "data")
    (repo / "data.txt").write_text("edited by the developer\n")
    (repo / "scratch.txt").write_text("the developer's notes\n")
    # Premise: both files are dirty, so git status lists them before and after the run.
    dirty = status(repo)
    assert dirty == {" M data.txt", "?? scratch.txt"}

    result = pytester.runpytest_subprocess(*INNER)

    result.stdout.fnmatch_lines(["truegreen tree guard: session*"])
    assert result.ret == pytest.ExitCode.OK
    assert "truegreen tree guard -" not in result.stdout.str()
    assert status(repo) == dirty


WRITES_CACHES = """
from pathlib import Path

HERE = Path(__file__).parent


def test_writes_caches():
    for relative in [
        ".pytest_cache/extra/state",
        "pkg/__pycache__/mod.cpython-39.pyc",
        ".hypothesis/examples/abc",
        ".mypy_cache/3.9/x.json",
        ".ruff_cache/0.1/y",
        ".coverage.host.1.2",
    ]:
        path = HERE / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("cache")
"""


def test_writes_into_tool_caches_are_not_reported(pytester: pytest.Pytester) -> None:
    """Ablation: replace `any(is_tool_cache(part) for part in path.rstrip("/").split("/"))` with
    `False` in `src/truegreen/core/gitstatus.py`: every cache file is a new untracked file.
    Restored."""
    repo = make_repo(pytester, ignore_bytecode=False, test_caches=WRITES_CACHES)

    session = pytester.runpytest_subprocess(*INNER)  # the cacheprovider writes too

    # Premise: the caches really are new untracked files in the checkout.
    assert {
        ".pytest_cache/extra/state",
        "pkg/__pycache__/mod.cpython-39.pyc",
        ".coverage.host.1.2",
    } <= untracked(repo)
    assert ".pytest_cache/v/cache/nodeids" in untracked(repo)
    assert session.ret == pytest.ExitCode.OK, session.stdout.str()
    each = pytester.runpytest_subprocess(*INNER, "--truegreen-tree-guard=each")
    each.assert_outcomes(passed=1)
    assert "truegreen tree guard -" not in session.stdout.str() + each.stdout.str()


WRITES_TMP = """
def test_writes_tmp(tmp_path):
    (tmp_path / "out.txt").write_text("pytest's own")
"""


def test_writes_under_a_basetemp_inside_the_checkout_are_not_reported(
    pytester: pytest.Pytester,
) -> None:
    """pytester's subprocess run puts ``--basetemp`` inside pytester's directory, which here is
    the checkout.

    Ablation: replace `config.option.basetemp` with `None` in
    `src/truegreen/plugin/treeguard.py`:
    `runpytest-0/test_writes_tmp0/out.txt` is reported. Restored."""
    repo = make_repo(pytester, test_tmp=WRITES_TMP)

    result = pytester.runpytest_subprocess(*INNER)

    # Premise: the file is in the checkout, and git lists it.
    assert "runpytest-0/test_writes_tmp0/out.txt" in untracked(repo, basetemp=True)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert "truegreen tree guard -" not in result.stdout.str()


def test_outside_a_checkout_it_says_so_and_stays_out_of_the_way(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ablation: replace `os.path.lexists(os.path.join(folder, ".git"))` with `True` in
    `src/truegreen/plugin/treeguard.py` (the header claims a session guard, and the run fails:
    "could not compare the working tree: git status failed ...")."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(pytester.path.parent))
    pytester.makepyfile(test_leaves=WRITES_NOTES)
    # Premise: git finds no checkout here.
    found = subprocess.run(["git", "rev-parse"], cwd=pytester.path, capture_output=True)
    assert found.returncode != 0

    result = pytester.runpytest_subprocess(*INNER)

    result.stdout.fnmatch_lines(
        [f"truegreen tree guard: off here (not a git checkout: {pytester.path})"]
    )
    assert result.ret == pytest.ExitCode.OK
    assert (pytester.path / "notes.txt").is_file()


def test_without_git_it_says_so_and_stays_out_of_the_way(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Ablation: replace `shutil.which("git", path=env.get("PATH", os.defpath)) is None` with
    `False` in `src/truegreen/plugin/treeguard.py` (the run fails: "could not compare the
    working tree: could not run git")."""
    make_repo(pytester, test_leaves=WRITES_NOTES)
    empty = tmp_path / "no-programs"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))

    result = pytester.runpytest_subprocess(*INNER)

    result.stdout.fnmatch_lines(["truegreen tree guard: off here (git not found)"])
    assert result.ret == pytest.ExitCode.OK
    # Premise: the checkout is real and the test did change it.
    monkeypatch.undo()
    assert untracked(pytester.path) == {"notes.txt"}


def test_git_sees_the_developers_own_excludes_file_though_the_process_is_sealed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The developer's ~/.config/git/ignore says *.swp: an editor's swap file is not a change
    of the tree, though the process seal points HOME and git's configuration elsewhere.

    Ablation: replace `os.environ if machine is None else machine` with `os.environ` in
    `src/truegreen/plugin/treeguard.py`."""
    home = ambient_home(monkeypatch, tmp_path / "home", identity=False)
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "ignore").write_text("*.swp\n")
    repo = make_repo(pytester, test_swap="def test_edits():\n    open('notes.swp', 'w').close()\n")
    result = pytester.runpytest_subprocess(*INNER, "-p", "no:randomly")
    assert (repo / "notes.swp").exists()  # premise: the test did leave it
    assert untracked(repo) == set()  # premise: git, as the developer runs it, ignores it
    bare = git(repo, "-c", "core.excludesFile=/dev/null", "status", "--porcelain=v1")
    assert "?? notes.swp" in bare.splitlines()  # premise: only that file ignores it
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()


# Two tests land in each shard of 2 (digest mode).
FOUR_TESTS = """
def test_one():
    pass


def test_two():
    pass


def test_three():
    pass


def test_four():
    pass
"""
# The docs/ci.md step, as action.yml runs it: a deadline, the event stream and the manifest;
# and the same flags on pytest's own command line.
CI_STEPS = {
    "truegreen-run": (
        "-m",
        "truegreen",
        "run",
        "--deadline",
        "1200",
        "--metrics",
        "metrics/",
        "--",
    ),
    "pytest": ("-m", "pytest", "--truegreen-metrics=metrics/"),
}


@pytest.mark.parametrize("how", sorted(CI_STEPS))
def test_the_ci_step_s_own_manifests_and_metrics_are_not_changes_of_the_tree(
    pytester: pytest.Pytester, how: str
) -> None:
    """The docs/ci.md command line in a git checkout: every shard stays green and the
    shards verify, though the run writes manifests/ and metrics/ into the checkout.
    (`truegreen run` starts pytest in a scrubbed environment, where an ablated module does
    not reach: the `pytest` case is the one an ablation kills.)

    Ablation: replace `settings.manifest` with `None` in `src/truegreen/plugin/treeguard.py`;
    replace `settings.metrics` with `None` in `src/truegreen/plugin/treeguard.py`."""
    repo = make_repo(pytester, test_four=FOUR_TESTS)
    shard = [sys.executable, *CI_STEPS[how], "--truegreen-manifest=manifests/"]
    shards = []
    for k in (1, 2):
        run = [*shard, f"--truegreen-shard={k}/2"]
        shards.append(subprocess.run(run, cwd=repo, capture_output=True, text=True, check=False))
    # Premise: both shards wrote their files into the checkout, where git lists them.
    listed = untracked(repo)
    assert {"manifests/shard-1-of-2.json", "manifests/shard-2-of-2.json"} <= listed
    assert any(path.startswith("metrics/") for path in listed), listed
    for done in shards:
        assert "truegreen tree guard: session" in done.stdout, done.stdout + done.stderr
        assert "truegreen tree guard -" not in done.stdout, done.stdout
        assert done.returncode == 0, done.stdout + done.stderr
    verified = subprocess.run(
        [sys.executable, "-m", "truegreen", "shards", "verify", "manifests/", "--count", "2"],
        cwd=repo, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert "ok   every shard green" in verified.stdout.splitlines(), verified.stdout
    assert verified.returncode == 0, verified.stdout + verified.stderr


def logging_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``git`` first on PATH that notes its arguments in the returned file, then runs git."""
    real = shutil.which("git")
    assert real is not None
    shims, log = tmp_path / "shims", tmp_path / "git.log"
    shims.mkdir()
    shim = shims / "git"
    shim.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\nexec "{real}" "$@"\n')
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shims}{os.pathsep}{os.environ['PATH']}")
    log.write_text("")
    return log


def calls(log: Path) -> list[str]:
    return log.read_text().splitlines()


@pytest.mark.skipif(
    not Path("/bin/sh").exists() or importlib.util.find_spec("xdist") is None,
    reason="needs /bin/sh (the git shim's interpreter) and pytest-xdist",
)
def test_a_run_starts_git_twice_in_a_checkout_whatever_its_files_and_workers(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The tree guard's whole cost in processes: one `git status` before the run and one
    after, in the controller; finding the checkout and the xdist workers start none.

    Ablation: replace `checkout is not None and not worker` with `checkout is not None` in
    `src/truegreen/plugin/treeguard.py`."""
    files = {f"test_f{n}": f"def test_{n}():\n    pass\n" for n in range(4)}
    make_repo(pytester, **files)
    log = logging_git(tmp_path, monkeypatch)

    result = pytester.runpytest_subprocess(*INNER, "-n", "2", "-p", "no:randomly")

    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["truegreen tree guard: session *"])
    found = calls(log)
    assert len(found) == 2, found
    assert all(" status " in f" {line} " for line in found), found


@pytest.mark.skipif(not Path("/bin/sh").exists(), reason="needs /bin/sh, the shim's interpreter")
def test_outside_a_checkout_a_run_starts_no_git(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Ablation: replace `os.path.lexists(os.path.join(folder, ".git"))` with `True` in
    `src/truegreen/plugin/treeguard.py`."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(pytester.path.parent))
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    log = logging_git(tmp_path, monkeypatch)
    # Premise: the shim sees every git this process tree starts.
    subprocess.run(["git", "--version"], check=True, capture_output=True)
    assert calls(log) == ["--version"]

    result = pytester.runpytest_subprocess(*INNER, "-p", "no:randomly")

    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["truegreen tree guard: off here (not a git checkout: *"])
    assert calls(log) == ["--version"]
