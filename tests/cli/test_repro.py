"""truegreen repro over a real temporary git project: a fresh clone, a fresh venv, both runs.

Every clean room here installs offline: it inherits this environment's packages
(--inherit-packages), and pip is told to use no index (PIP_NO_INDEX) and a folder of wheels made
in the test; the suite's own network guard would stop any connection.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from truegreen import __version__
from truegreen.cli import main
from truegreen.core.errors import TruegreenError
from truegreen.core.repro import Plan
from truegreen.runner.repro import CleanRoom

TESTS = """\
from pathlib import Path

def test_reads_its_data():
    assert Path("data.txt").read_text() == "hello\\n"

def test_adds():
    assert 1 + 1 == 2
"""


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid",
         "-c", "init.defaultBranch=main", *args],
        cwd=repo, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A committed project whose test reads data.txt (not committed yet), the working
    directory of the test."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "test_app.py").write_text(TESTS, encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    monkeypatch.chdir(root)
    return root


def test_a_test_that_passes_on_an_untracked_file_fails_on_a_clean_machine(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ablation: replace `a == b` with `True` in `src/truegreen/core/repro.py`."""
    (project / "data.txt").write_text("hello\n", encoding="utf-8")
    assert git(project, "status", "--porcelain") == "?? data.txt\n"  # premise: untracked
    status = main(["repro", "--inherit-packages"])
    out, err = capsys.readouterr()
    assert status == 1
    blocks = out.split("\n\n")
    assert blocks[0].startswith("truegreen repro: HEAD (")
    assert blocks[0].endswith(f" on a clean machine, 2 tests; here, 2 tests (a sealed run in "
                              f"{project})\ninstalled from nothing: no lock file, requirements "
                              "file or pyproject.toml\ncommand: pytest")  # fmt: skip
    assert blocks[1:] == [
        "passes here, fails on a clean machine: 1 test\n"
        "  test_app.py::test_reads_its_data: FileNotFoundError: [Errno 2] No such file or "
        "directory: 'data.txt'",
        "not in the clean room (uncommitted or untracked here):\n  ?? data.txt\n",
    ]
    assert "truegreen repro: not in the clean room: 1 untracked file of this checkout" in err
    assert "truegreen repro: running the suite in the clean room: pytest\n" in err


def test_the_same_outcomes_exit_0_with_the_workflows_command(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "data.txt").write_text("hello\n", encoding="utf-8")
    git(project, "add", "data.txt")
    git(project, "commit", "-q", "-m", "data")
    workflow = tmp_path / "ci.yml"
    workflow.write_text("jobs:\n  t:\n    steps:\n      - run: |\n          python -m pytest -q "
                        "--junitxml=out.xml\n", encoding="utf-8")  # fmt: skip
    status = main(["repro", "--inherit-packages", "--workflow", str(workflow), "--format",
                   "json"])  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    assert status == 0
    assert data["differences"] == []
    assert data["tests"] == {"here": 2, "clean": 2}
    assert data["pytest_args"] == ["-q"]
    assert data["command"] == f"python -m pytest -q --junitxml=out.xml ({workflow}, line 5)"
    assert data["revision"]["commit"] == git(project, "rev-parse", "HEAD").strip()


def test_the_local_side_can_be_a_recorded_event_stream(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "data.txt").write_text("hello\n", encoding="utf-8")
    metrics = tmp_path / "metrics"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    f"--truegreen-metrics={metrics}"], cwd=project, check=True,
                   capture_output=True)  # fmt: skip
    status = main(["repro", "--inherit-packages", "--local", str(metrics)])
    out = capsys.readouterr().out
    assert status == 1
    assert f"(the event stream in {metrics})\n" in out
    assert "\npasses here, fails on a clean machine: 1 test\n" in out


# A PEP 517 build backend in the project itself (no build dependency to download): a wheel
# of no modules whose metadata names its extra; and the same code makes the extra's wheel.
BACKEND = """\
import base64, hashlib, zipfile

def make_wheel(folder, name, files, extra=""):
    info = f"{name}-1.0.dist-info"
    meta = f"Metadata-Version: 2.1\\nName: {name}\\nVersion: 1.0\\n" + extra
    files = {**files, f"{info}/METADATA": meta,
             f"{info}/WHEEL": "Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"}
    record = [f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(d.encode()).digest()).rstrip(b'=').decode()},{len(d.encode())}"
              for p, d in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = "\\n".join(record) + "\\n"
    wheel = f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(f"{folder}/{wheel}", "w") as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return wheel

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    extra = "Provides-Extra: test\\nRequires-Dist: helperlib; extra == 'test'\\n"
    return make_wheel(wheel_directory, "app", {}, extra)
"""  # noqa: E501
PYPROJECT = """\
[build-system]
requires = []
build-backend = "backend"
backend-path = ["."]
"""


def test_it_installs_the_test_extra_offline_from_pips_own_variables(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """The test extra's package is installed in the clean room only, from the wheel folder
    pip's variables name; installed here too, the outcomes match.

    Ablation: replace `[n for n in TEST_NAMES if n in declared][:1]` with `[]` in
    `src/truegreen/core/repro.py`."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    make_wheel: Any = {}
    exec(BACKEND, make_wheel)  # the backend's own code makes the extra's wheel
    make_wheel["make_wheel"](str(wheels), "helperlib", {"helperlib.py": "ANSWER = 42\n"})
    (project / "backend.py").write_text(BACKEND, encoding="utf-8")
    (project / "pyproject.toml").write_text(
        PYPROJECT + '[project]\nname = "app"\nversion = "1.0"\n'
        '[project.optional-dependencies]\ntest = ["helperlib"]\n',
        encoding="utf-8",
    )
    (project / "test_app.py").write_text(
        "def test_helper():\n    import helperlib\n    assert helperlib.ANSWER == 42\n",
        encoding="utf-8",
    )
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "helper")
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    status = main(["repro", "--inherit-packages", "--format", "json"])
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert status == 1  # helperlib is not installed here: the local run fails
    assert data["installed_from"] == ("the project (pip install .) with its extra test (found "
                                      "in pyproject.toml; --extra picks others)")  # fmt: skip
    assert data["differences"] == [
        {"test": "test_app.py::test_helper", "here": "failed", "clean": "passed",
         "why": "ModuleNotFoundError: No module named 'helperlib'"},
    ]  # fmt: skip
    assert "truegreen repro:   $ python -m pip install '.[test]'\n" in captured.err


def test_an_unknown_revision_is_one_line_and_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ablation: replace `not sha.ok` with `False` in `src/truegreen/runner/repro.py`."""
    assert main(["repro", "no-such-branch"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"truegreen: error: truegreen repro: REV expected a git revision of {project}, found "
        "'no-such-branch'; name a branch, tag or commit\n"
    )


def test_outside_a_checkout_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["repro"]) == 2
    assert capsys.readouterr().err == (
        f"truegreen: error: truegreen repro: expected a git checkout, found none at "
        f"{str(tmp_path)!r}; run it inside the repository\n"
    )


def test_an_unreadable_workflow_is_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["repro", "--workflow", "missing.yml"]) == 2
    assert capsys.readouterr().err == (
        "truegreen: error: truegreen repro: --workflow 'missing.yml': expected a readable "
        "workflow file, found No such file or directory\n"
    )


def test_pytest_args_after_the_separator_are_not_taken_for_rev(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ablation: replace `words[:at], words[at + 1 :]` with `words, []` in
    `src/truegreen/cli/repro.py`."""
    status = main(["repro", "--inherit-packages", "--format", "json", "--", "-k", "adds"])
    data = json.loads(capsys.readouterr().out)
    assert (status, data["revision"]["asked"], data["pytest_args"]) == (0, "HEAD", ["-k", "adds"])
    assert data["tests"] == {"here": 1, "clean": 1}


def test_a_clean_room_without_pytest_is_a_finding(tmp_path: Path) -> None:
    """Ablation: replace `done.returncode != 0 or "pytest" in missing` with `False` in
    `src/truegreen/runner/repro.py`."""
    room = CleanRoom(lambda line: None)
    try:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(room.venv)],
                       check=True)  # fmt: skip
        probe = [room.python, "-c", "import pytest"]
        assert subprocess.run(probe, capture_output=True).returncode == 1  # premise: none
        expected = r"^truegreen repro: pytest is not installed in the clean room by nothing: CI "
        with pytest.raises(TruegreenError, match=expected + "would fail the same way") as caught:
            room.ready(Plan("nothing", ()))
        assert caught.value.exit_status == 1
    finally:
        room.close()
    assert not room.top.exists()


def test_the_command_runs_as_a_real_process(project: Path) -> None:
    (project / "data.txt").write_text("hello\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "truegreen", "repro", "--inherit-packages"],
                          capture_output=True, text=True, env=dict(os.environ))  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "passes here, fails on a clean machine: 1 test" in done.stdout


def test_truegreen_is_copied_into_a_clean_room_whose_dependencies_lack_it() -> None:
    """pytest is there (its folder on the venv's path, without the .pth files that would
    import truegreen); truegreen is copied in, its pytest11 entry point with it."""
    import sysconfig

    room = CleanRoom(lambda line: None)
    try:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(room.venv)],
                       check=True)  # fmt: skip
        # This environment's packages, truegreen's left out (a wheel installs it beside them).
        purelib = Path(sysconfig.get_paths()["purelib"])
        shelf = room.top / "only-pytest"
        shelf.mkdir()
        for entry in purelib.iterdir():
            if not entry.name.startswith(("truegreen", "__editable__")) and entry.suffix != ".pth":
                (shelf / entry.name).symlink_to(entry)
        (room._site() / "only-pytest.pth").write_text(f"{shelf}\n")
        probe = [room.python, "-E", "-c", "import importlib.util as u; print(*(u.find_spec(n) "
                 "is not None for n in ('pytest', 'truegreen')))"]  # fmt: skip
        found = subprocess.run(probe, capture_output=True, text=True, env=room._bare())
        assert found.stdout == "True False\n"  # premise: pytest only
        room.ready(Plan("nothing", ()))
        probe[-1] = "import truegreen; print(truegreen.__file__)"
        found = subprocess.run(probe, capture_output=True, text=True, env=room._bare())
        lib = room.top / "truegreen-lib"
        points = (lib / f"truegreen-{__version__}.dist-info" / "entry_points.txt").read_text()
    finally:
        room.close()
    assert found.stdout == f"{lib / 'truegreen' / '__init__.py'}\n"
    assert "[pytest11]\ntruegreen = truegreen.plugin\n" in points
