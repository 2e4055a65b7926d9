"""truegreen ablate --warm: runs forked by one server that never imported what they ablate."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from truegreen.cli import main
from truegreen.runner.forkserver import available

pytestmark = pytest.mark.skipif(not available(), reason="no fork on this platform")

GATE = "def allowed(n):\n    return n < 3\n"

# Each run says which process started it, so a test can tell forked runs from new processes.
PARENT = """\
import os


def log_parent():
    with open(os.path.join(os.environ["PARENT_LOG"], str(os.getpid())), "w") as handle:
        handle.write(str(os.getppid()))
"""

TESTS = '''\
from app.gate import allowed
from app.parent import log_parent


def test_big_is_refused():
    """Ablation: replace `n < 3` with `True` in `app/gate.py`."""
    log_parent()
    assert not allowed(5)


def test_big_is_refused_again():
    """Ablation: replace `n < 3` with `n < 9` in `app/gate.py`."""
    log_parent()
    assert not allowed(5)
'''


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "gate.py").write_text(GATE)
    (root / "app" / "parent.py").write_text(PARENT)
    (root / "tests").mkdir()
    (root / "tests" / "test_gate.py").write_text(TESTS)
    (root / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\npythonpath = ["."]\n[tool.truegreen]\ntree-guard = "off"\n'
    )
    (tmp_path / "parents").mkdir()
    monkeypatch.setenv("PARENT_LOG", str(tmp_path / "parents"))
    monkeypatch.chdir(root)
    return root


def _parents(project: Path) -> list[int]:
    return [int(p.read_text()) for p in sorted((project.parent / "parents").iterdir())]


def _site(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory on PYTHONPATH, as a virtual environment's site-packages is on sys.path."""
    site = project / "site"
    site.mkdir()
    path = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(site), path) if p))
    return site


def _verdicts(out: str) -> list[str]:
    return [record["verdict"] for record in json.loads(out)["records"]]


@pytest.mark.parametrize(
    ("flags", "can_fork", "forked"),
    [
        (["--warm"], True, True),
        ([], True, True),
        (["--no-warm"], True, False),
        (["--warm"], False, False),
        ([], False, False),
    ],
    ids=["warm", "warm-by-default", "no-warm", "warm-without-fork", "default-without-fork"],
)
def test_runs_are_forked_by_one_server_unless_asked_not_to_or_unable(
    project: Path,
    flags: list[str],
    can_fork: bool,
    forked: bool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr("truegreen.runner.forkserver.available", lambda: can_fork)
    status = main(["ablate", "--records", "tests", "-j", "2", "--format", "json", *flags])
    out, err = capsys.readouterr()
    assert (status, _verdicts(out)) == (0, ["killed", "killed"]), err
    parents = set(_parents(project))
    assert len(_parents(project)) == 4  # a premise for each test, and each claim ablated
    assert len(parents) == 1  # one server forked them all, or this process started them all
    assert (os.getpid() not in parents) == forked
    asked = flags == ["--warm"] and not can_fork
    assert ("--warm needs fork (POSIX); a new process a run" in err) == asked


def test_a_plugin_that_imports_the_target_is_left_to_each_run(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The server preloads installed pytest plugins, but not one whose module is a claim's
    target: the forked run imports it afresh, ablated.

    Ablation: replace `Avoid(options.get("avoid", ()))` with `Avoid(())` in
    `src/truegreen/runner/forkserver.py`."""
    site = _site(project, monkeypatch)
    (site / "gateplug.py").write_text(
        "import pytest\n\n\ndef allowed(n):\n    return n < 3\n\n\n"
        "@pytest.fixture\ndef gate():\n    return allowed\n"
    )
    info = site / "gateplug-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gateplug\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pytest11]\ngateplug = gateplug\n")
    (project / "tests" / "test_gate.py").write_text(
        "from app.parent import log_parent\n\n\ndef test_big_is_refused(gate):\n"
        '    """Ablation: replace `n < 3` with `True` in `site/gateplug.py`."""\n'
        "    log_parent()\n    assert not gate(5)\n"
    )
    status = main(["ablate", "--records", "tests", "--warm", "--format", "json"])
    out, err = capsys.readouterr()
    assert (status, _verdicts(out)) == (0, ["killed"]), err
    assert os.getpid() not in _parents(project)  # premise: the ablated run was forked


def test_a_target_the_server_imports_itself_runs_in_a_new_process(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A sitecustomize runs in the server before anything can stop it: a target it imports
    is the original in every fork, so its claims run in a new process, ablated.

    Ablation: replace `os.path.realpath(target) not in self.server.loaded` with `True` in
    `src/truegreen/runner/ablation.py`."""
    site = _site(project, monkeypatch)
    (site / "sitecustomize.py").write_text("import app.gate\n")
    monkeypatch.setenv("PYTHONPATH", f"{project}{os.pathsep}{os.environ['PYTHONPATH']}")
    status = main(["ablate", "--records", "tests", "--warm", "--format", "json"])
    out, err = capsys.readouterr()
    assert (status, _verdicts(out)) == (0, ["killed", "killed"]), err
    assert "the warm server imports app/gate.py itself; its claims run in a new process" in err
    assert os.getpid() in _parents(project)


def test_a_server_that_cannot_fork_safely_leaves_each_run_a_new_process(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    site = _site(project, monkeypatch)
    (site / "sitecustomize.py").write_text(
        "import threading\nthreading.Thread(target=threading.Event().wait, daemon=True).start()\n"
    )
    status = main(["ablate", "--records", "tests", "--warm", "--format", "json"])
    out, err = capsys.readouterr()
    assert (status, _verdicts(out)) == (0, ["killed", "killed"]), err
    assert (
        "truegreen ablate: no warm server (a plugin started a thread at import (2 threads)); "
        "a new process a run\n"
    ) in err
    assert set(_parents(project)) == {os.getpid()}


@pytest.mark.parametrize("flags", [["--warm"], ["--no-warm"]], ids=["warm", "cold"])
def test_a_timeout_ends_the_run_s_whole_tree(
    project: Path, flags: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A grandchild in a session of its own is ended with the run it belongs to.

    Ablation: replace `descendants(process.pid)` with `[]` in `src/truegreen/runner/procs.py`."""
    pid_file = project.parent / "grandchild.pid"
    (project / "tests" / "test_gate.py").write_text(
        "import subprocess, time\n\nfrom app.gate import allowed\n\n\n"
        "def test_big_is_refused():\n"
        '    """Ablation: replace `n < 3` with `True` in `app/gate.py`."""\n'
        "    if allowed(5):  # only with the gate gone: hang, and leave a grandchild\n"
        "        child = subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
        f"        open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "        time.sleep(300)\n"
        "    assert not allowed(5)\n"
    )
    status = main(
        ["ablate", "--records", "tests", "--run-timeout", "4", "--format", "json", *flags]
    )
    out, err = capsys.readouterr()
    assert (status, _verdicts(out)) == (1, ["timeout"]), err
    assert pid_file.exists()  # premise: the grandchild was started
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)  # left the process group, and still did not survive


@pytest.mark.parametrize("flags", [["--warm"], ["--no-warm"]], ids=["warm", "cold"])
def test_a_conftest_fixture_can_be_ablated(
    project: Path, flags: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """pytest imports a conftest.py through its assertion rewriter; the mutant goes first.

    Ablation: delete `to_front()` in `src/truegreen/plugin/rewriting.py`: the warm run sees
    the original conftest and the claim survives. Restored."""
    (project / "tests" / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.fixture\ndef limit():\n    return 3\n"
    )
    (project / "tests" / "test_gate.py").write_text(
        "def test_the_limit_is_three(limit):\n"
        '    """Ablation: replace `3` with `9` in `tests/conftest.py`."""\n'
        "    assert limit == 3\n"
    )
    status = main(["ablate", "--records", "tests", "--format", "json", *flags])
    out, err = capsys.readouterr()
    assert (status, _verdicts(out)) == (0, ["killed"]), err


def test_warm_from_the_command_line(project: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "truegreen", "ablate", "app/gate.py", "--replace", "n < 3",
         "--with", "n < 6", "--test", "tests/test_gate.py::test_big_is_refused", "--warm"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "1 killed"
