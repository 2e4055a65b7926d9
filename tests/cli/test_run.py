"""truegreen run: a sealed process, a deadline that ends the whole tree, one file at a time."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from truegreen.runner.selfseal import SEALED_VAR

CANARY = "tg-canary-run-77"


def truegreen_run(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "truegreen", "run", *args], cwd=cwd,
                          capture_output=True, text=True, check=False, env=env)  # fmt: skip


def test_pytest_starts_in_a_scrubbed_environment_conftest_included(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The environment the runner hands pytest is decided afresh. The runner's re-execution
    of itself sealed is left out here (it has tests of its own), so this gate stands alone.

    Ablation: replace `{name: environ[name] for name in (*ALLOWED, *keep) if name in environ}`
    with `dict(environ)` in `src/truegreen/runner/procs.py`."""
    monkeypatch.setenv(SEALED_VAR, "1")  # as if already re-executed: the runner keeps its own
    monkeypatch.setenv("MYAPP_API_URL", CANARY)
    monkeypatch.setenv("KEPT_ONE", "kept")
    (tmp_path / "conftest.py").write_text(
        "import os\nSEEN_AT_IMPORT = os.environ.get('MYAPP_API_URL')\nHOME_AT_IMPORT = "
        "os.environ['HOME']\n"
    )
    (tmp_path / "test_env.py").write_text(
        "import os\nfrom pathlib import Path\n\nimport conftest\n\n"
        "def test_clean():\n"
        "    assert conftest.SEEN_AT_IMPORT is None\n"
        "    assert os.listdir(conftest.HOME_AT_IMPORT) == []\n"
        "    assert os.environ['KEPT_ONE'] == 'kept'\n"
        "    assert os.environ['TZ'] == 'UTC'\n"
    )
    premise = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:truegreen",
                              "-p", "no:cacheprovider"], cwd=tmp_path, capture_output=True,
                             text=True, check=False)  # fmt: skip
    assert premise.returncode == 1  # plain pytest's conftest sees the variable
    done = truegreen_run(tmp_path, "--keep-env", "KEPT_ONE", "--", "-q", "-p", "no:cacheprovider")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_guards_of_a_sealed_run_protect_the_developers_home_not_the_runs(
    tmp_path: Path,
) -> None:
    """pytest starts with a fresh HOME; the developer's home is still the one guarded, and no
    test sees the variable that names it.

    Ablation: replace `environ.get(REAL_HOME_VAR) or environ.get("HOME") or home` with `home` in
    `src/truegreen/runner/procs.py`."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    machine = {**os.environ, "HOME": str(home)}
    (project / "test_litter.py").write_text(
        "import os\n\n"
        "def test_litters():\n"
        "    assert '_TRUEGREEN_REAL_HOME' not in os.environ\n"
        f"    with open({str(home / 'litter.txt')!r}, 'w') as handle:\n"
        "        handle.write('x')\n"
    )
    premise = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              "-p", "no:randomly", "--truegreen-set", "writes=off"], cwd=project,
                             capture_output=True, text=True, check=False, env=machine)  # fmt: skip
    assert premise.returncode == 0, premise.stdout  # premise: the write itself works
    (home / "litter.txt").unlink()
    done = truegreen_run(project, "--", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                         env=machine)  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "the real home" in done.stdout


def test_the_deadline_ends_the_whole_tree_with_124_and_names_the_running_test(
    tmp_path: Path,
) -> None:
    pid_file = tmp_path / "grandchild.pid"
    (tmp_path / "test_hang.py").write_text(
        "import os, subprocess, time\n\n"
        "def test_quick():\n    pass\n\n"
        "def test_hang():\n"
        "    child = subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
        f"    open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "    time.sleep(300)\n"
    )
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.truegreen]\nallow-writes = ["{pid_file.name}"]\n'
    )
    start = time.monotonic()
    done = truegreen_run(tmp_path, "--deadline", "4", "--metrics", "metrics", "--",
                         "-p", "no:cacheprovider", "-p", "no:randomly")  # fmt: skip
    elapsed = time.monotonic() - start
    assert done.returncode == 124, done.stdout + done.stderr
    assert elapsed < 4 + 3 + 4  # the deadline, the grace period, and start-up
    assert "was running: test_hang.py::test_hang" in done.stderr
    grandchild = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(grandchild, 0)  # left the process group, and still did not survive
    report = subprocess.run([sys.executable, "-m", "truegreen", "metrics", "metrics"],
                            cwd=tmp_path, capture_output=True, text=True, check=False)  # fmt: skip
    assert "started and never finished\n  test_hang.py::test_hang" in report.stdout


@pytest.mark.parametrize("flags", [[], ["--no-fork-server"]], ids=["forked", "new-processes"])
def test_isolated_files_add_up_to_a_plain_run(tmp_path: Path, flags: list[str]) -> None:
    for i in range(20):
        (tmp_path / f"test_f{i:02}.py").write_text(
            "import pytest\n\n"
            "def test_pass():\n    pass\n\n"
            "@pytest.mark.skip(reason='later')\ndef test_skip():\n    pass\n\n"
            + ("def test_fail():\n    assert False\n" if i % 7 == 0 else "")
        )
    plain = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                           cwd=tmp_path, capture_output=True, text=True, check=False)  # fmt: skip
    isolated = truegreen_run(tmp_path, "--isolate-files", "-j", "2", *flags, "--", "-q",
                             "-p", "no:cacheprovider")  # fmt: skip
    assert plain.stdout.strip().splitlines()[-1].startswith("3 failed, 20 passed, 20 skipped")
    last = isolated.stdout.strip().splitlines()[-1]
    assert last.startswith("20 passed, 3 failed, 20 skipped in "), last
    assert last.endswith("(20 files, one process each)")
    assert isolated.returncode == plain.returncode == 1


@pytest.mark.parametrize("flags", [[], ["--no-fork-server"]], ids=["forked", "new-processes"])
def test_a_flaky_file_is_shown_with_both_outputs_and_a_hanging_one_is_not_retried(
    tmp_path: Path, flags: list[str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_flaky.py").write_text(
        "import os\nfrom pathlib import Path\n\n"
        "def test_second_time_lucky():\n"
        "    mark = Path(os.environ['FLAKY_MARK'])\n"
        "    if not mark.exists():\n"
        "        mark.write_text('seen')\n"
        "        assert False, 'first attempt'\n"
    )
    (project / "test_hang.py").write_text("import time\n\ndef test_hang():\n    time.sleep(300)\n")
    env = {**os.environ, "FLAKY_MARK": str(tmp_path / "mark-1")}
    done = truegreen_run(
        project,
        "--keep-env",
        "FLAKY_MARK",
        "--isolate-files",
        *flags,
        "--file-timeout",
        "8",  # the hang's bound; a loaded machine can take 3 s to start a new pytest process
        "--retries",
        "2",
        "--",
        "-q",
        "-p",
        "no:cacheprovider",
        env=env,
    )
    out = done.stdout
    assert "FLAKY: passed only on a retry" in out
    assert "--- test_flaky.py: the failing attempt ---" in out
    assert "first attempt" in out
    assert "--- test_flaky.py: the passing retry ---" in out
    assert "TIMED OUT test_hang.py: ended, not retried" in out
    assert done.returncode == 1  # the timed-out file
    (project / "test_hang.py").unlink()
    env["FLAKY_MARK"] = str(tmp_path / "mark-2")
    retry_once = ["--keep-env", "FLAKY_MARK", "--isolate-files", *flags, "--retries", "1"]
    pytest_args = ["--", "-q", "-p", "no:cacheprovider"]
    lenient = truegreen_run(project, *retry_once, *pytest_args, env=env)
    assert lenient.returncode == 0, lenient.stdout
    env["FLAKY_MARK"] = str(tmp_path / "mark-3")
    strict = truegreen_run(project, *retry_once, "--strict-flaky", *pytest_args, env=env)
    assert "FLAKY: passed only on a retry" in strict.stdout
    assert strict.returncode == 1


def numbered(root: Path) -> list[str]:
    """The numbered directories pytest made under a temporary root, lowest first."""
    found = [p.name for p in root.glob("pytest-of-*/pytest-[0-9]*")]
    return sorted(found, key=lambda name: int(name.rsplit("-", 1)[1]))


def test_an_isolated_run_is_one_numbered_directory_kept_as_pytest_keeps_one(
    tmp_path: Path,
) -> None:
    """Ablation: replace `self._base.option(name)` with `[]` in
    `src/truegreen/runner/files.py`."""
    project, root = tmp_path / "project", tmp_path / "temproot"
    project.mkdir()
    root.mkdir()
    for name in ("test_a.py", "test_b.py"):
        (project / name).write_text("def test_it(tmp_path):\n    (tmp_path / 'seen').touch()\n")
    env = {**os.environ, "PYTEST_DEBUG_TEMPROOT": str(root)}
    argv = ["--keep-env", "PYTEST_DEBUG_TEMPROOT", "--isolate-files", "-j", "2", "--", "-q",
            "-p", "no:cacheprovider"]  # fmt: skip
    for _ in range(4):
        done = truegreen_run(project, *argv, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
    assert numbered(root) == ["pytest-1", "pytest-2", "pytest-3"]  # the last three runs
    last = next(root.glob("pytest-of-*")) / "pytest-3"
    seen = sorted(p.relative_to(last).as_posix() for p in last.rglob("seen"))
    assert seen == ["f0-test_a/test_it0/seen", "f1-test_b/test_it0/seen"]
    (project / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\ntmp_path_retention_policy = "failed"\n'
    )
    (project / "test_c.py").write_text("def test_it():\n    assert False\n")
    assert truegreen_run(project, *argv, env=env).returncode == 1
    assert numbered(root)[-1] == "pytest-4"  # a failed run's is kept
    (project / "test_c.py").unlink()
    done = truegreen_run(project, *argv, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert numbered(root)[-1] == "pytest-4"  # a passing run's, pytest-5, is not


def test_the_files_directories_go_under_the_users_basetemp(tmp_path: Path) -> None:
    project, mine = tmp_path / "project", tmp_path / "mine"
    project.mkdir()
    mine.mkdir()
    (mine / "stale").touch()
    (project / "test_a.py").write_text("def test_it(tmp_path):\n    (tmp_path / 'seen').touch()\n")
    done = truegreen_run(project, "--isolate-files", "--", "-q", "-p", "no:cacheprovider",
                         f"--basetemp={mine}")  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    actual = sorted(p.relative_to(mine).as_posix() for p in mine.rglob("seen"))
    assert actual == ["f0-test_a/test_it0/seen"]
    assert not (mine / "stale").exists()  # emptied at the start, as pytest empties it


def test_every_files_failures_reach_the_shared_last_failed_cache(tmp_path: Path) -> None:
    # The sealed runner drops the ablation's variables, so this test cannot carry the merge's
    # record; tests/plugin/test_sharedcache.py does.
    project = tmp_path / "project"
    project.mkdir()
    (project / "pytest.ini").write_text("[pytest]\n")
    for number in range(12):
        (project / f"test_f{number:02}.py").write_text(
            "def test_passes():\n    pass\n\ndef test_fails():\n    assert False\n"
        )
    done = truegreen_run(project, "--isolate-files", "-j", "2", "--", "-q")
    assert done.returncode == 1, done.stdout  # premise: every file's session failed one test
    assert done.stdout.splitlines()[-1].startswith("12 passed, 12 failed in ")
    listed = subprocess.run([sys.executable, "-m", "pytest", "--lf", "--collect-only", "-q",
                             "-p", "no:truegreen"], cwd=project, capture_output=True, text=True,
                            check=False)  # fmt: skip
    expected = [f"test_f{number:02}.py::test_fails" for number in range(12)]
    assert [line for line in listed.stdout.splitlines() if "::" in line] == expected


@pytest.mark.platforms("linux")  # /proc
def test_the_runner_itself_holds_only_the_sealed_environment(tmp_path: Path) -> None:
    """The pytest that ``truegreen run`` starts is the runner's child: the runner's
    ``/proc/<pid>/environ`` is the environment it was given unless it replaced itself.

    Ablation: replace `sys.argv[1:2] != ["run"]` with `True` in
    `src/truegreen/runner/selfseal.py`."""
    machine = {**os.environ, "MYAPP_API_URL": CANARY, "GITHUB_TOKEN": CANARY}
    (tmp_path / "test_parent.py").write_text(
        "import os\n\n"
        "def test_parent():\n"
        "    with open(f'/proc/{os.getppid()}/environ', 'rb') as handle:\n"
        "        data = handle.read()\n"
        "    assert b'PATH=' in data  # premise: the parent's environment is readable\n"
        f"    assert {CANARY!r}.encode() not in data\n"
    )
    flags = ("-q", "-p", "no:cacheprovider", "--truegreen-set", "reads=off")
    done = truegreen_run(tmp_path, "--", *flags, env=machine)
    assert done.returncode == 0, done.stdout + done.stderr
    isolated = truegreen_run(tmp_path, "--isolate-files", "--", *flags, env=machine)
    assert isolated.returncode == 0, isolated.stdout + isolated.stderr
