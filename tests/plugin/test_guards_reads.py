"""The read guard, end to end: a test that reads the real home or walks up above the rootdir is
reported (a warning by default, a failure under reads = "fail"); Python's own reads are not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import ambient_home
from truegreen.guards.reads import is_proc_environ

NO_TREE_GUARD = ("--truegreen-tree-guard=off", "-p", "no:randomly")

# dotenv's find_dotenv, reduced: walk up from the test file until a .env turns up.
WALK_UP = """
from pathlib import Path


def find_dotenv(start):
    for folder in (start, *start.parents):
        candidate = folder / ".env"
        try:
            return candidate.read_text()
        except FileNotFoundError:
            continue
    return None


def test_reads_settings():
    assert find_dotenv(Path(__file__).parent) == "MODE=dev\\n"
"""


@pytest.fixture(autouse=True)
def home(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The inner run's real home, away from its checkout (pytester makes its own directory
    the home; the fixture comes after it)."""
    return ambient_home(monkeypatch, tmp_path / "real-home", identity=False)


def checkout(pytester: pytest.Pytester) -> Path:
    """A checkout two levels below a workspace that holds a ``.env``."""
    project = pytester.path / "workspace" / "src" / "proj"
    project.mkdir(parents=True)
    (pytester.path / "workspace" / ".env").write_text("MODE=dev\n")
    (project / "pyproject.toml").write_text("[tool.truegreen]\n")
    return project


def run(pytester: pytest.Pytester, project: Path, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(
        *NO_TREE_GUARD, str(project), f"--rootdir={project}", *args
    )


def test_a_dotenv_found_above_the_rootdir_is_a_warning_by_default(
    pytester: pytest.Pytester,
) -> None:
    """Ablation: replace `guard.policy.reads == "off"` with `True` in
    `src/truegreen/guards/writes.py`: the read goes unreported. Restored."""
    project = checkout(pytester)
    (project / "test_settings.py").write_text(WALK_UP)
    result = run(pytester, project)
    result.assert_outcomes(passed=1)  # the test saw the .env: it passed because of it
    env = pytester.path / "workspace" / ".env"
    result.stdout.fnmatch_lines(
        [
            'warnings (mode "warn") by test:',
            "  test_settings.py::test_reads_settings",
            f"    read: did open for reading {env} (in a directory above the rootdir) at "
            f"{project}/test_settings.py:9",
        ]
    )
    out = result.stdout.str()
    # each directory walked through is a read too, until the one that holds the file
    assert f"{project.parent}/.env (in a directory above the rootdir)" in out


def test_reads_fail_fails_the_test_and_says_how_out(pytester: pytest.Pytester) -> None:
    """Ablation: replace `policy.reads` with `"warn"` in `src/truegreen/guards/reads.py`:
    the read is only a warning and the test passes."""
    project = checkout(pytester)
    (project / "test_settings.py").write_text(WALK_UP)
    result = run(pytester, project, "--truegreen-set", "reads=fail")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "truegreen: this test reached outside its sandbox:",
            "*read: did open for reading *workspace/.env (in a directory above the rootdir)*",
            "A read outside its sandbox: the test sees what this machine holds there. *"
            f'allow-reads = ?"{pytester.path}/workspace/src/.env"? in *',
        ]
    )


def test_reads_off_says_nothing(pytester: pytest.Pytester) -> None:
    project = checkout(pytester)
    (project / "test_settings.py").write_text(WALK_UP)
    result = run(pytester, project, "--truegreen-set", "reads=off")
    result.assert_outcomes(passed=1)
    assert ".env" not in result.stdout.str()


def test_a_python_child_reading_the_real_home_is_reported(
    pytester: pytest.Pytester, home: Path
) -> None:
    """A stale cache in the real home, read by a child the test starts.

    Ablation: replace `raw["reads"]` with `"off"` in `src/truegreen/guards/policy.py`: the
    child loads a policy without the read guard. Restored."""
    cache = home / ".cache" / "tool" / "index.json"
    cache.parent.mkdir(parents=True)
    cache.write_text("{}")
    project = checkout(pytester)
    (project / "test_cache.py").write_text(
        "import subprocess\nimport sys\n\n"
        "def test_child_reads_cache():\n"
        f"    code = {f'open({str(cache)!r}).read()'!r}\n"
        "    subprocess.run([sys.executable, '-c', code], check=True)\n"
    )
    result = run(pytester, project, "--truegreen-set", "reads=fail")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [f"*read: did open for reading {cache} (under the real home) at <string>:1 (in child*"]
    )


def test_python_s_own_reads_under_the_home_are_not_reported(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, home: Path
) -> None:
    """A package on PYTHONPATH in the home, and its data: Python's own, in the session and in
    a child; the home's dotfile next to it is not.

    Ablation: replace `python_paths() if s.reads != "off" else ()` with `()` in
    `src/truegreen/plugin/guards.py`: the child, started without the session's sys.path entry,
    takes the package's data for the home's. Restored."""
    site = home / "lib"
    (site / "homepkg").mkdir(parents=True)
    (site / "homepkg" / "__init__.py").write_text("")
    (site / "homepkg" / "table.csv").write_text("a,b\n")
    (home / ".toolrc").write_text("x")
    # keep what is there (the shim that serves an ablation's mutant to the inner pytest)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), os.environ["PYTHONPATH"]]))
    project = checkout(pytester)
    (project / "test_pkg.py").write_text(
        "import os\nimport subprocess\nimport sys\nfrom pathlib import Path\n\nimport homepkg\n\n"
        "def test_reads_package_data():\n"
        "    data = Path(homepkg.__file__).parent / 'table.csv'\n"
        "    assert data.read_text() == 'a,b\\n'\n"
        "    site = str(Path(homepkg.__file__).parent.parent)\n"
        "    paths = os.environ['PYTHONPATH'].split(os.pathsep)\n"
        "    env = {**os.environ, 'PYTHONPATH': os.pathsep.join(p for p in paths if p != site)}\n"
        "    code = f'open({str(data)!r}).read()'\n"
        "    subprocess.run([sys.executable, '-c', code], check=True, env=env)\n\n"
        "def test_reads_dotfile():\n"
        f"    open({str(home / '.toolrc')!r}).read()\n"
    )
    result = run(pytester, project, "--truegreen-set", "reads=fail")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert f"{home}/.toolrc (under the real home)" in out  # premise: the home is watched
    assert "table.csv" not in out


PROC_ENVIRON = """
import os
import subprocess
import sys

CANARY = "tg-canary-environ-5d1e"


def test_reads_its_own_environment():
    assert CANARY not in os.environ.get("GITHUB_TOKEN", "")  # the seal removed it
    with open("/proc/self/environ", "rb") as handle:
        assert CANARY.encode() in handle.read()  # premise: the kernel's copy still holds it


def test_a_child_reads_its_parents_environment():
    code = (
        "import os; data = open(f'/proc/{os.getppid()}/environ', 'rb').read(); "
        f"assert {CANARY!r}.encode() in data"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_reads_nothing_of_the_kind():
    with open("/proc/self/status", "rb") as handle:
        handle.read()
"""


@pytest.mark.platforms("linux")
def test_reading_a_process_environment_is_a_read_outside_the_sandbox(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The seal takes credentials out of ``os.environ``; ``/proc/<pid>/environ`` still holds
    them, for the test and for its children (their parent's).

    Ablation: replace `is_proc_environ(os.path.normpath(text))` with `False` in
    `src/truegreen/guards/reads.py`."""
    monkeypatch.setenv("GITHUB_TOKEN", "tg-canary-environ-5d1e")
    project = checkout(pytester)
    (project / "test_environ.py").write_text(PROC_ENVIRON)
    result = run(pytester, project, "--truegreen-set", "reads=fail", "-rA")
    # the two tests that read an environment passed their own asserts (the canary was there)
    # and fail for the read alone
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*read: did open for reading /proc/self/environ (a process's environment, as it "
            "was before the seal) at *test_environ.py:11",
            '*allow-reads = ?"/proc/*/environ"? in *',
            "*read: did open for reading /proc/*/environ (a process's environment, as it was "
            "before the seal) at <string>:1 (in child*",
        ]
    )
    out = result.stdout.str()
    assert "AssertionError" not in out  # premise: the reads found the canary
    assert "CalledProcessError" not in out


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/proc/self/environ", True),
        ("/proc/thread-self/environ", True),
        ("/proc/1234/environ", True),
        ("/proc/self/task/77/environ", True),
        ("/proc/1234/task/77/environ", True),
        ("/proc/self/status", False),
        ("/proc/environ", False),
        ("/proc/self/fd/3/environ", False),
        ("/home/dev/proc/self/environ", False),
        ("/proc/sys/environ", False),
    ],
)
def test_which_paths_are_a_process_environment(path: str, expected: bool) -> None:
    assert is_proc_environ(path) is expected
